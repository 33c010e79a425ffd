"""The write stage: analyses, weekly report, episode digests, translations, and the checker every output passes."""
