"""The offline newsroom's writers: everything they publish is chosen from the material by code.

With no model endpoint configured, newsdesk does not write prose; it selects and arranges
the material's own sentences into the same structures the model-written forms use, so the
site, feeds, Markdown and web app render them with the same templates:

- card.py     a daily card for one event (headline, lead sentences, figures, members,
              independence, what the material level allows to be said)
- english.py  the English edition's card: headline and lead from one English report, English
              sentences only
- weekly.py   the weekly report: themes (the weekly's own grouping), their events' lead
              facts, and briefs each told by one item's own text
- episode.py  an episode digest: sections from topic segmentation (segment.py), the
              speakers' sentences quoted verbatim with time codes, a 5–9 bullet summary
- checked.py  each of them checked against its material and keyed on it: cards stored as
              analyses, the episode digest and the weekly as editions, in the rows the
              written ones use (what write/writers.py's ExtractiveWriters call)
- evaluate.py `newsdesk eval digest`: sections and summary against labelled meetings
"""
