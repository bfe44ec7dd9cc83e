# mk/job.mk: what condor_cc links into relinked programs, and the two
# commands that go with it.
#
#   lib/condor_rt0.o          the start-up object: the .condor_relinked
#                             marker and the constructor that starts the
#                             checkpoint library (src/libckpt/ckpt_rt0.c)
#   lib/libcondor_ckpt.a      checkpoint and restart (src/libckpt, plus the
#                             checkpoint-file writer of src/common/ckptfile.c
#                             built without libelf)
#   lib/libcondor_remote.a    the system-call gate, trap and open-file
#                             table (src/libremote), and the box's outer
#                             filter the starter also installs
#                             (src/common/box_filter.c)
#   lib/include/condor_ckpt.h the header of ckpt() and ckpt_and_exit()
#
# The job code runs in signal handlers and while a restart replaces the
# process's memory: no stack protector (the canary changes under it), no
# CET, no PIE, no profiling, no loops turned into memcpy/memset calls.

JOB_CFLAGS := -std=gnu11 -D_GNU_SOURCE -O2 -g -fno-strict-aliasing \
	-fno-stack-protector -fcf-protection=none -fno-pie \
	-fno-tree-loop-distribute-patterns -fno-omit-frame-pointer \
	-fno-asynchronous-unwind-tables -funwind-tables \
	$(WARN) -Iinclude -MMD -MP

JOB_REMOTE_OBJ := $(patsubst src/libremote/%.c,obj/job/%.o,$(wildcard src/libremote/*.c)) \
	$(patsubst src/libremote/%.S,obj/job/%.o,$(wildcard src/libremote/*.S)) \
	obj/job/box_filter.o
JOB_CKPT_OBJ := $(filter-out obj/job/ckpt_rt0.o,\
	$(patsubst src/libckpt/%.c,obj/job/%.o,$(wildcard src/libckpt/*.c)) \
	$(patsubst src/libckpt/%.S,obj/job/%.o,$(wildcard src/libckpt/*.S))) \
	obj/job/ckptfile.o

extra: lib/libcondor_ckpt.a lib/libcondor_remote.a lib/condor_rt0.o \
	lib/include/condor_ckpt.h

obj/job/%.o: src/libremote/%.c
	@mkdir -p $(@D)
	$(CC) $(JOB_CFLAGS) -c -o $@ $<
obj/job/%.o: src/libremote/%.S
	@mkdir -p $(@D)
	$(CC) -fcf-protection=none -c -o $@ $<
obj/job/%.o: src/libckpt/%.c
	@mkdir -p $(@D)
	$(CC) $(JOB_CFLAGS) -c -o $@ $<
obj/job/%.o: src/libckpt/%.S
	@mkdir -p $(@D)
	$(CC) -fcf-protection=none -c -o $@ $<
obj/job/box_filter.o: src/common/box_filter.c
	@mkdir -p $(@D)
	$(CC) $(JOB_CFLAGS) -c -o $@ $<
obj/job/ckptfile.o: src/common/ckptfile.c
	@mkdir -p $(@D)
	$(CC) $(JOB_CFLAGS) -DCKPTFILE_NO_LIBELF -c -o $@ $<

lib/libcondor_remote.a: $(JOB_REMOTE_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^
lib/libcondor_ckpt.a: $(JOB_CKPT_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^
lib/condor_rt0.o: obj/job/ckpt_rt0.o
	@mkdir -p $(@D)
	cp $< $@
lib/include/condor_ckpt.h: include/condor_ckpt.h
	@mkdir -p $(@D)
	cp $< $@

# condor_ckpt reads and merges checkpoints with libelf; so will the
# starter, which merges and ships them, and the shadow, which verifies
# and installs them (src/common/ckptfile.c).
TOOL_LIBS_condor_ckpt := -lelf
sbin/condor_starter: LDLIBS += -lelf
sbin/condor_shadow: LDLIBS += -lelf

# condor_fc: condor_cc driving gfortran.
extra: bin/condor_fc
bin/condor_fc: bin/condor_cc
	ln -sf condor_cc $@

# condor_compile: condor_cc wrapping the command it is given.
extra: bin/condor_compile
bin/condor_compile: bin/condor_cc
	ln -sf condor_cc $@
