// Pipeline stage; see docs/ARCHITECTURE.md.
