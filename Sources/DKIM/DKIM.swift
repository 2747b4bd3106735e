// DKIM stage; see docs/ARCHITECTURE.md.
