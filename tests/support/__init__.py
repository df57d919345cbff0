"""What the tests share: ports, waits, servers (in-process and subprocess),
Redis, scripted clients and the manual clock. Each helper is defined once,
here; a test module imports from here, never from another test module."""
