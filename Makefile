# Thin wrapper over meson/ninja: `make demo`, `make check`, `make install PREFIX=...`.
# `make check` runs every test but the suite 'slow' (NVIDIA's programs through odma compat,
# the benchmark's tool test, the namespace pairs, the long stress run); `make check-slow` runs
# those, `make check-all` both. JOBS=N sets the build's parallelism, TEST_JOBS (default three
# times JOBS) the test runner's: most tests wait on peers, sockets and timeouts, not the CPU, so
# six run well on two cores (make check's tests: 30 s at 6 against 35 s at 4 and 60 s at 2
# here; under qemu-user, make check-cross's: 94 s at 4 against 113 s at 2).
# `make install LAYOUT=doca PREFIX=/opt/mellanox/doca` installs in DOCA's own layout (flat
# include/, lib/<multiarch>/, tools/doca_caps, applications/VERSION) so trees that hard-code
# DOCA's paths build unchanged; LAYOUT=default (the default) is the usual GNU layout.
# `make cross ARCH=arm64` cross-builds everything for aarch64 (a DPU's Arm cores) into
# build-arm64 with scripts/cross/aarch64-linux-gnu.ini, installing the cross toolchain, the
# arm64 libraries and qemu-user first (root, Debian); `make check-cross ARCH=arm64` runs make
# check's suite there under qemu-user (tests qemu-user cannot run exit 77 and say why).
BUILD   ?= build
PREFIX  ?= /usr/local
LAYOUT  ?= default
MESON   ?= meson
NINJA   ?= ninja
# Extra options for `meson setup` (e.g. MESON_OPTS="-Db_sanitize=address,undefined").
MESON_OPTS ?=
JOBS    ?= 2
TEST_JOBS ?= $(shell echo $$(( $(JOBS) * 3 )))

ARCH    ?=
# Debian's architecture name -> the cross file's GNU triplet.
CROSS_TRIPLET_arm64 = aarch64-linux-gnu
CROSS_BUILD = build-$(ARCH)

.PHONY: cross check-cross all deps demo check check-slow check-all check-load install uninstall clean fuzz soak soak-cycles bench

all: $(BUILD)/build.ninja
	$(NINJA) -C $(BUILD) -j $(JOBS)

deps:
	@sh scripts/install-deps.sh

$(BUILD)/build.ninja:
	@sh scripts/install-deps.sh
	$(MESON) setup $(BUILD) --prefix=$(PREFIX) -Dwerror=true $(MESON_OPTS)

demo: all
	@sh scripts/demo.sh $(BUILD)

check: all
	$(MESON) test -C $(BUILD) --print-errorlogs --num-processes $(TEST_JOBS) --no-suite slow

cross:
	@if [ -z "$(CROSS_TRIPLET_$(ARCH))" ]; then \
		echo "make cross: ARCH must be arm64 (aarch64), not '$(ARCH)'" >&2; exit 2; fi
	@sh scripts/install-deps.sh $(ARCH)
	@[ -f $(CROSS_BUILD)/build.ninja ] || $(MESON) setup $(CROSS_BUILD) --prefix=$(PREFIX) \
		--cross-file scripts/cross/$(CROSS_TRIPLET_$(ARCH)).ini -Dwerror=true $(MESON_OPTS)
	$(NINJA) -C $(CROSS_BUILD) -j $(JOBS)

check-cross: cross
	$(MESON) test -C $(CROSS_BUILD) --print-errorlogs --num-processes $(TEST_JOBS) --no-suite slow

check-slow: all
	$(MESON) test -C $(BUILD) --print-errorlogs --num-processes $(JOBS) --suite slow

check-all: all
	$(MESON) test -C $(BUILD) --print-errorlogs --num-processes $(JOBS)

# make check's suite 5 times (RUNS=N) beside one busy loop per core: no test may depend on timing.
check-load: all
	@TEST_JOBS=$(TEST_JOBS) sh scripts/check-load.sh $(BUILD)

install: all
	$(MESON) configure $(BUILD) -Dprefix=$(PREFIX)
ifeq ($(LAYOUT),doca)
	$(NINJA) -C $(BUILD)
	sh scripts/install-doca-layout.sh $(BUILD) $(PREFIX) $(DESTDIR)
else ifeq ($(LAYOUT),default)
	$(MESON) install -C $(BUILD)
else
	@echo "make install: LAYOUT must be default or doca, not '$(LAYOUT)'" >&2; exit 2
endif

fuzz: all
	@sh scripts/fuzz.sh long

soak: all
	@sh scripts/soak.sh $(BUILD)

# 100 runs of 100000 PE/context create-destroy cycles (ODMA_SOAK_RUNS, ODMA_SOAK_CYCLES).
soak-cycles: all
	@sh scripts/soak-cycles.sh $(BUILD)

bench: all
	./$(BUILD)/tools/odma bench --sweep

clean:
	rm -rf $(BUILD)
