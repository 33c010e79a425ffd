"""What matters: what kind of happening an event tells (happenings.py), how important it is and which tab it
shows on (score.py), and the week's lead events and themes that both weekly writers take (themes.py)."""
