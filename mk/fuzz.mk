# Coverage-guided fuzzers (libFuzzer, clang) for the parsers and decoders:
# the expression language, ads as text, the configuration, job description
# files, the XDR of requests, and regular expressions.  `make fuzzers` builds them;
# tests/fuzz/run.sh (part of `make check`) gives each a short run from its
# corpus in tests/fuzz/.

FUZZ_CC		?= clang
FUZZ_FLAGS	:= -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_NAMES	:= $(basename $(notdir $(wildcard tests/fuzz/fuzz_*.c)))
FUZZERS		:= $(FUZZ_NAMES:%=obj/fuzz/%)
FUZZ_LIB_SRC	:= $(UTIL_SRC) $(COMMON_SRC) $(CLASSAD_SRC) $(SUBMIT_SRC) $(GEN_XDR) $(GEN_CLNT)
FUZZ_LIB_OBJ	:= $(patsubst %.c,obj/fuzz/lib/%.o,$(FUZZ_LIB_SRC))

obj/fuzz/lib/%.o: %.c $(GEN_H)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -std=gnu11 \
		-D_GNU_SOURCE $(CPPFLAGS) $(FUZZ_DEFS) -w -MMD -MP -c -o $@ $<

obj/fuzz/libcommon_fuzz.a: $(FUZZ_LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

obj/fuzz/fuzz_%: tests/fuzz/fuzz_%.c obj/fuzz/libcommon_fuzz.a
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -std=gnu11 -D_GNU_SOURCE \
		$(CPPFLAGS) -Isrc/shadow -Isrc/kbdd -o $@ $< $(filter %.o,$^) \
		obj/fuzz/libcommon_fuzz.a $(LDLIBS)

.PHONY: fuzzers
fuzzers: $(FUZZERS)
check: fuzzers

# Targets that serve a daemon's requests link that daemon's objects:
# their objects are prerequisites of the target (main() renamed away
# where a file has one).
obj/fuzz/fuzz_syscall: obj/fuzz/lib/src/shadow/shadow_calls.o
obj/fuzz/fuzz_xidle: obj/fuzz/lib/src/kbdd/kbdd_xidle.o
obj/fuzz/fuzz_rpc: obj/fuzz/lib/src/shadow/shadow_transfer.o \
	obj/fuzz/lib/src/shadow/shadow_xfer.o \
	obj/fuzz/lib/obj/gen/shadow_rpc_svc.o obj/fuzz/lib/src/master/master.o \
	obj/fuzz/lib/src/master/master_children.o \
	obj/fuzz/lib/obj/gen/master_rpc_svc.o
obj/fuzz/fuzz_rpc: LDLIBS += -lelf
obj/fuzz/lib/src/master/master.o: FUZZ_DEFS := -Dmain=master_main -Dkill=fuzz_kill
obj/fuzz/lib/src/master/master_children.o: FUZZ_DEFS := -Dkill=fuzz_kill
