"""Placeholder app, replaced below."""
import typer

app = typer.Typer()


@app.command()
def run() -> None:
    print("ok")


def main() -> None:
    app()
