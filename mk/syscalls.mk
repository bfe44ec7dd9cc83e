# The remote system-call protocol's manual page, printed from the one
# description of the calls (include/syscall_table.h) by mk/syscall_man.c.
# man/man7/condor_syscalls.7 is the committed copy: `make syscalls-man`
# refreshes it, tests/pool/syscalls_man_test.sh checks it is current.

extra: obj/man7/condor_syscalls.7

obj/syscall_man: mk/syscall_man.c include/syscall_table.h include/syscall_proto.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -Iinclude -o $@ $<

obj/man7/condor_syscalls.7: obj/syscall_man
	@mkdir -p $(@D)
	obj/syscall_man >$@

.PHONY: syscalls-man
syscalls-man: obj/man7/condor_syscalls.7
	cp obj/man7/condor_syscalls.7 man/man7/condor_syscalls.7
