# Condor: build, test, demo, install.  Plain make; see README.
#
#   make              install missing Debian packages (as root), build
#   make check        build and run every test; last line "N passed, N failed, N skipped"
#   make demo         a personal pool running a real job
#   make bench        benchmarks
#   make install PREFIX=/usr/local

PREFIX	?= /usr/local
CC	?= cc
RPCGEN	?= rpcgen

TIRPC_CFLAGS := -I/usr/include/tirpc
WARN	:= -Wall -Wextra -Werror -Wno-unused-parameter
CFLAGS	?= -O2 -g
CFLAGS	+= -std=gnu11 -D_GNU_SOURCE -fno-strict-aliasing
CPPFLAGS := -Iinclude -Iobj/gen $(TIRPC_CFLAGS)
LDLIBS	:= -ltirpc -lm

DEBIAN_PACKAGES := libtirpc-dev libelf-dev rpcsvc-proto
# What the tests use besides: rpcinfo, real programs' static libraries,
# man (every manual page must render).
TEST_PACKAGES := rpcbind python3 clang bc liblua5.4-dev libsqlite3-dev zlib1g-dev gfortran gdb binutils \
	xvfb xdotool xauth ethtool time man-db

# Protocols: include/NAME.x -> obj/gen/NAME.h, NAME_xdr.c, NAME_clnt.c,
# NAME_svc.c.  The server stub is linked into the daemon of the same name.
PROTOCOLS := $(basename $(notdir $(wildcard include/*.x)))
GEN_H	:= $(PROTOCOLS:%=obj/gen/%.h)
GEN_XDR	:= $(PROTOCOLS:%=obj/gen/%_xdr.c)
GEN_CLNT := $(filter-out obj/gen/condor_types_clnt.c,$(PROTOCOLS:%=obj/gen/%_clnt.c))

# src/util: what any program could use (allocation, buffers, log, event
# loop, descriptors, privileges).  src/common: what two or more of our
# programs share that speaks Condor (configuration, expressions and ads,
# the daemon skeleton and RPC helpers, protocol clients, the queue log,
# the user log, the checkpoint file).  src/classad: the ClassAd language
# (expressions and ads), a library of its own as in HTCondor.
# src/submit: the submit language (condor_submit's, condor_dagman's and
# the schedd's).
UTIL_SRC := $(wildcard src/util/*.c)
LIBUTIL	:= obj/libcondor_util.a
COMMON_SRC := $(wildcard src/common/*.c)
COMMON_OBJ := $(COMMON_SRC:%.c=obj/%.o) $(GEN_XDR:%.c=%.o) $(GEN_CLNT:%.c=%.o)
LIBCOMMON := obj/libcondor_common.a
CLASSAD_SRC := $(wildcard src/classad/*.c)
LIBCLASSAD := obj/libcondor_classad.a
SUBMIT_SRC := $(wildcard src/submit/*.c)
LIBSUBMIT := obj/libcondor_submit.a
LIBS	:= $(LIBSUBMIT) $(LIBCOMMON) $(LIBCLASSAD) $(LIBUTIL)
# The submit language speaks in ads and expressions, and the schedd's
# client sends what it parsed; ads travel through the common protocol
# code and the language falls back on the configuration: the libraries
# are read as a group.
LINK_LIBS := -Wl,--start-group $(LIBSUBMIT) $(LIBCOMMON) $(LIBCLASSAD) \
	-Wl,--end-group $(LIBUTIL)

# Daemons: src/DAEMON/*.c -> sbin/condor_DAEMON.  A program of its own
# directory that users run goes to bin/ instead (USER_PROGRAMS:
# src/P/*.c -> bin/condor_P): condor_dagman, which condor_submit_dag
# queues and a user may run by hand, is in bin as in HTCondor.
USER_PROGRAMS := dagman
DAEMONS := $(filter-out common util tools submit classad libckpt libremote $(USER_PROGRAMS),$(sort $(notdir $(patsubst %/,%,$(dir $(wildcard src/*/*.c))))))
SBIN	:= $(DAEMONS:%=sbin/condor_%)

# Commands: src/tools/condor_X.c -> bin/condor_X; the other files of
# src/tools are pieces only commands use, linked into each of them.
TOOLS_SRC := $(wildcard src/tools/condor_*.c)
BIN	:= $(TOOLS_SRC:src/tools/%.c=bin/%) $(USER_PROGRAMS:%=bin/condor_%)
LIBTOOLS := obj/libcondor_tools.a
TOOLS_LIB_OBJ := $(patsubst %.c,obj/%.o,$(filter-out $(TOOLS_SRC),$(wildcard src/tools/*.c)))

# Unit tests: tests/unit/X_test.c -> obj/tests/X_test
UNIT_SRC := $(wildcard tests/unit/*_test.c)
UNIT	:= $(UNIT_SRC:tests/unit/%.c=obj/tests/%)

all: deps $(SBIN) $(BIN) extra

.PHONY: all deps test-deps check demo bench install clean extra

# Missing Debian packages: installed when we are root, named otherwise.
define install_missing
	@missing=""; for p in $(1); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing:$$missing"; \
			(apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
		else \
			echo "missing packages; run as root: apt-get install$$missing" >&2; exit 1; \
		fi; \
	fi
endef

deps:
	$(call install_missing,$(DEBIAN_PACKAGES))

test-deps:
	$(call install_missing,$(TEST_PACKAGES))

obj/gen/%.h: include/%.x
	@mkdir -p $(@D)
	rm -f $@
	cd include && $(RPCGEN) -M -h -o ../$@ $(<F)
obj/gen/%_xdr.c: include/%.x
	@mkdir -p $(@D)
	rm -f $@
	cd include && $(RPCGEN) -M -c -o ../$@ $(<F)
obj/gen/%_clnt.c: include/%.x
	@mkdir -p $(@D)
	rm -f $@
	cd include && $(RPCGEN) -M -l -o ../$@ $(<F)
obj/gen/%_svc.c: include/%.x
	@mkdir -p $(@D)
	rm -f $@
	cd include && $(RPCGEN) -M -m -o ../$@ $(<F)

# Generated code may relax warnings; nothing else does.
obj/gen/%.o: obj/gen/%.c $(GEN_H)
	$(CC) $(CFLAGS) $(CPPFLAGS) -w -c -o $@ $<

obj/%.o: %.c $(GEN_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) -MMD -MP -c -o $@ $<

$(LIBCOMMON): $(COMMON_OBJ)
	rm -f $@
	ar rcs $@ $^

$(LIBCLASSAD): $(CLASSAD_SRC:%.c=obj/%.o)
	rm -f $@
	ar rcs $@ $^

$(LIBSUBMIT): $(SUBMIT_SRC:%.c=obj/%.o)
	rm -f $@
	ar rcs $@ $^

$(LIBUTIL): $(UTIL_SRC:%.c=obj/%.o)
	rm -f $@
	ar rcs $@ $^

$(LIBTOOLS): $(TOOLS_LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

# Keep the generated protocol sources: they are intermediates otherwise.
.SECONDARY:

.SECONDEXPANSION:
sbin/condor_%: $$(subst .c,.o,$$(addprefix obj/,$$(wildcard src/$$*/*.c))) $$(if $$(wildcard include/$$*_rpc.x),obj/gen/$$*_rpc_svc.o) $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(LINK_LIBS) $(LDLIBS)

$(USER_PROGRAMS:%=bin/condor_%): bin/condor_%: $$(subst .c,.o,$$(addprefix obj/,$$(wildcard src/$$*/*.c))) $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(LINK_LIBS) $(LDLIBS)

bin/condor_%: obj/src/tools/condor_%.o $(LIBTOOLS) $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(LIBTOOLS) $(LINK_LIBS) $(LDLIBS) \
		$(TOOL_LIBS_condor_$*)

# A unit test of a module that belongs to one program links that module
# (UNIT_OBJ_name) and sees its directory's headers.
UNIT_OBJ_mail := obj/src/shadow/shadow_mail.o
UNIT_OBJ_negotiator_match := obj/src/negotiator/negotiator_matchmaker.o
UNIT_OBJ_negotiator_pslot := obj/src/negotiator/negotiator_matchmaker.o
UNIT_OBJ_negotiator_updown := obj/src/negotiator/negotiator_updown.o
UNIT_OBJ_shadow_calls := obj/src/shadow/shadow_calls.o
UNIT_OBJ_startd_policy := obj/src/startd/startd_owner.o
UNIT_OBJ_starter_owner := obj/src/starter/starter_owner.o
UNIT_OBJ_summary := obj/src/tools/summary.o
UNIT_OBJ_xidle := obj/src/kbdd/kbdd_xidle.o

obj/tests/%_test: tests/unit/%_test.c $$(UNIT_OBJ_$$*) $(LIBS) tests/unit/test.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) -Itests/unit \
		$(patsubst obj/%/,-I%,$(dir $(UNIT_OBJ_$*))) -o $@ $< \
		$(UNIT_OBJ_$*) $(LINK_LIBS) $(LDLIBS)

# The ClassAd table test's evaluator (tests/classad).
obj/tests/classad_eval: tests/classad/classad_eval.c $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) -o $@ $< $(LINK_LIBS) $(LDLIBS)

# Per-program extras are added by the fragments below.
extra: obj/tests/classad_eval
-include mk/*.mk

check: all test-deps $(UNIT)
	@tests/run

demo: all
	@tests/demo

bench: all test-deps
	@bench/run

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/sbin \
		$(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/etc \
		$(DESTDIR)$(PREFIX)/share/man
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin
	ln -sf condor_cc $(DESTDIR)$(PREFIX)/bin/condor_fc
	ln -sf condor_cc $(DESTDIR)$(PREFIX)/bin/condor_compile
	install -m 755 $(SBIN) $(DESTDIR)$(PREFIX)/sbin
	[ -z "$$(ls lib 2>/dev/null)" ] || cp -R lib/. $(DESTDIR)$(PREFIX)/lib
	install -m 644 etc/condor_config $(DESTDIR)$(PREFIX)/etc
	# Every section there is: man1 commands, man5 files, man7 protocols,
	# man8 daemons (tests/pool/install_test.sh checks none is left out).
	for d in man/man*; do \
		install -d $(DESTDIR)$(PREFIX)/share/$$d && \
		install -m 644 $$d/* $(DESTDIR)$(PREFIX)/share/$$d || exit 1; \
	done

clean:
	rm -rf obj bin sbin lib

-include $(shell find obj -name '*.d' 2>/dev/null)
