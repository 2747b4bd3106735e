// EventStore stage; see docs/ARCHITECTURE.md.
