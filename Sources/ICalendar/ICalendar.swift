// ICalendar stage; see docs/ARCHITECTURE.md.
