# flexlet build. `make` builds build/flexlet and build/flexlet-helper (the pods' helper
# processes run it, see src/helper/main.c); `make test` runs every test (see README).
# BUILD selects the output folder so sanitizer and plain builds sit side by side.

BUILD    ?= build
CC       ?= gcc
PKGS     := jansson sqlite3 libmicrohttpd gnutls libcurl libnghttp2 libssh2 yaml-0.1 libseccomp zlib
# libarchive: its headers only; src/node/runtime/tar.c loads the library when it first reads a
# tarball (docs/dependencies.md), and the tests that write tarballs link it (ARCHIVE_LIBS).
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) libarchive 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ARCHIVE_LIBS := $(shell pkg-config --libs libarchive 2>/dev/null)
WARN     := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Wmissing-prototypes \
            -Wstrict-prototypes -Wformat=2 -Wno-format-nonliteral
CFLAGS   ?= -O2 -g
override CFLAGS += -std=gnu11 $(WARN) -D_GNU_SOURCE -Isrc $(PKG_CFLAGS) -MMD -MP
override LDLIBS += $(PKG_LIBS) -lpthread -lm
# The allocator flexlet runs on (src/base/alloc.c, docs/dependencies.md): jemalloc, linked into
# flexlet and the tests of what depends on it (the allocator's, json_memory_size's). The
# sanitizer builds keep the sanitizer's (empty there), the static helper libc's.
MALLOC_LIBS ?= $(shell pkg-config --libs jemalloc 2>/dev/null)

LIB_SRCS := $(sort $(wildcard src/base/*.c src/http/*.c src/api/*.c src/store/*.c src/apiserver/*.c \
              src/client/*.c src/controllers/*.c src/node/*.c src/node/*/*.c))
CMD_SRCS := $(sort $(wildcard src/cmd/*.c))
HELPER_SRCS := $(sort $(wildcard src/helper/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/*/test-*.c))
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz-*.c))

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
CMD_OBJS := $(CMD_SRCS:%.c=$(BUILD)/%.o)
HELPER_OBJS := $(HELPER_SRCS:%.c=$(BUILD)/%.o)
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)

.PHONY: all unit-tests test test-asan run fuzz-smoke format format-check lint deps clean bench \
	bench-node bench-resize bench-pv bench-deployment bench-scaleout bench-exec bench-pull

all: $(BUILD)/flexlet $(BUILD)/flexlet-helper

$(BUILD)/libflexlet.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

# flexlet-helper comes with it: the agent execs the one beside it, and the two speak one protocol
$(BUILD)/flexlet: $(CMD_OBJS) $(BUILD)/libflexlet.a $(BUILD)/flexlet-helper
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJS) $(BUILD)/libflexlet.a $(LDLIBS) $(MALLOC_LIBS)

# The helpers' binary: static and not position-independent, so that every helper shares its
# pages (docs/dependencies.md); only the libraries the runtime's helper code calls. The
# sanitizer build links it dynamically (HELPER_LDFLAGS empty): ASan does not link statically.
HELPER_LDFLAGS ?= -static -no-pie
$(BUILD)/flexlet-helper: $(HELPER_OBJS) $(BUILD)/libflexlet.a
	$(CC) $(CFLAGS) $(LDFLAGS) $(HELPER_LDFLAGS) -o $@ $(HELPER_OBJS) $(BUILD)/libflexlet.a \
	  $(shell pkg-config --libs --static jansson libseccomp) -lpthread

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/unit/%: tests/unit/%.c $(BUILD)/libflexlet.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests $(LDFLAGS) -o $@ $< $(BUILD)/libflexlet.a $(LDLIBS) -lcmocka

$(BUILD)/tests/unit/base/test-alloc $(BUILD)/tests/unit/base/test-json: override LDLIBS += $(MALLOC_LIBS)
$(BUILD)/tests/unit/node/test-image-layers: override LDLIBS += $(ARCHIVE_LIBS)

unit-tests: $(UNIT_BINS)

deps:
	@bash scripts/install-deps.sh

# Everything: plain build, unit tests, the same unit tests under ASan+UBSan, fuzz smoke,
# black-box API tests with real kubectl. Ends with "N passed, N failed".
test: deps
	@bash tests/run-all.sh

# Sanitizer build of the unit tests and the binary (clang, AddressSanitizer + UBSan).
test-asan:
	$(MAKE) BUILD=build-asan CC=clang \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -DFLEXLET_CHECKS" \
	  LDFLAGS="-fsanitize=address,undefined" HELPER_LDFLAGS= MALLOC_LIBS= unit-tests build-asan/flexlet \
	  build-asan/flexlet-helper

# libFuzzer targets (clang), each run briefly over its seed corpus. The instrumented library
# is built once (fuzz-lib) before any target links against it.
FUZZ_BINS := $(FUZZ_SRCS:%.c=build-fuzz/%)
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
.PHONY: fuzz-lib
fuzz-lib:
	$(MAKE) BUILD=build-fuzz CC=clang CFLAGS="$(FUZZ_CFLAGS)" build-fuzz/libflexlet.a

build-fuzz/tests/fuzz/%: tests/fuzz/%.c fuzz-lib
	@mkdir -p $(dir $@)
	clang -std=gnu11 -D_GNU_SOURCE -Isrc $(PKG_CFLAGS) -O1 -g \
	  -fsanitize=fuzzer,address,undefined -o $@ $< build-fuzz/libflexlet.a $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

run: deps all
	@bash scripts/run-dev.sh

# Benchmarks; results land in bench/results/. The node and resize ones run as root.
bench: all
	bash bench/run-api-bench.sh
bench-node: all
	bash bench/run-node-bench.sh
bench-resize: all
	bash bench/run-resize-bench.sh
bench-pv: all
	bash bench/run-pv-bench.sh
bench-deployment: all
	bash bench/run-deployment-bench.sh
bench-scaleout: all
	bash bench/run-scaleout-bench.sh
bench-exec: all
	bash bench/run-exec-bench.sh
bench-pull: all
	bash bench/run-pull-bench.sh

format:
	clang-format -i $(LIB_SRCS) $(CMD_SRCS) $(HELPER_SRCS) $(UNIT_SRCS) $(FUZZ_SRCS) $(wildcard src/*/*.h src/*/*/*.h)

format-check:
	clang-format --dry-run --Werror $(LIB_SRCS) $(CMD_SRCS) $(HELPER_SRCS) $(UNIT_SRCS) $(FUZZ_SRCS) $(wildcard src/*/*.h src/*/*/*.h)

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning --inline-suppr -Isrc --std=c11 \
	  --suppress=missingIncludeSystem --library=scripts/cppcheck-jansson.cfg src

clean:
	rm -rf build build-asan build-fuzz

-include $(LIB_OBJS:.o=.d) $(CMD_OBJS:.o=.d) $(HELPER_OBJS:.o=.d) $(UNIT_BINS:=.d)
