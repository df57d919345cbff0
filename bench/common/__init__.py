"""What several benches do alike: read a process's CPU time and memory from
/proc, pin and renice child processes, start a server under test and wait for
it, start the throwaway Redis, describe the machine and the code measured,
apply a view patch and pick a random écart."""
