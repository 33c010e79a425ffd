from newsdesk.cli import app

app()
