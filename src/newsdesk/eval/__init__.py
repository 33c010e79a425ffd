"""Every evaluator: a stage or a written output measured against a labelled file (`newsdesk eval ...`). They replay
the stages, so this floor sits above run/ and below the front ends."""
