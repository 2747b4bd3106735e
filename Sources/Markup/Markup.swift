// Markup stage; see docs/ARCHITECTURE.md.
