// DNS stage; see docs/ARCHITECTURE.md.
