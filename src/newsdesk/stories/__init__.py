"""Stories: events that follow one another (a launch, its benchmarks, a tutorial, a fix), threaded by the
`stories` stage (threads.py), and a story's timeline as readers see it (timelines.py)."""
