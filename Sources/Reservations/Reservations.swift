// Reservations stage; see docs/ARCHITECTURE.md.
