"""Personal memory (markdown entries that follow a person across projects), engineering
docs as project memory, discussion notes, and the visible curation prompts."""
