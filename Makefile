# The two commands of the README, plus helpers. Each installs what it needs first.
BUILD ?= build
JOBS  ?= $(shell nproc)

.PHONY: deps configure build test build-sanitize test-sanitize demo bench clean format

deps:
	@bash scripts/install-deps.sh

# Ninja (scripts/install-deps.sh installs it) for a new build folder; one configured before
# keeps its generator.
generator = $(if $(wildcard $(1)/CMakeCache.txt),,-G Ninja)

configure: deps
	@cmake -S . -B $(BUILD) $(call generator,$(BUILD)) -DCMAKE_BUILD_TYPE=Release > $(BUILD).configure.log 2>&1 || (cat $(BUILD).configure.log; exit 1)

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@bash scripts/install-deps.sh --test
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The tests again in a separate build (build-asan) under AddressSanitizer and
# UndefinedBehaviorSanitizer (-O1 -g1, stopping at the first report), fuzz targets included
# (a fixed number of mutated inputs each). Left out (SANITIZE_EXCLUDE, a ctest -E regex,
# each name anchored): the slowest tests, which run in `make test` (the npm and browser
# checks, HF parity, the overfit runs, the finite-difference gradient checks of GPT and
# the modules, two CLI tests that wait on a running training); the heap and RSS
# measurements and the allocation counts (Measured.PeakRss*, Measured.HeapBytes*,
# MeasuredMemoryPlan.*: ASan's allocator changes them); and Distributed.* (mpirun's ranks:
# Open MPI's own allocations at exit are not ours to suppress).
SANITIZE_EXCLUDE ?= ^(tiktoken_differential|llama_cpp_reads_gguf|hf_tokenizers_read_tokenizer_json|report_browser|serve_openai_client|serve_browser|HuggingFaceParity\..*|Overfit\..*|Measured\.(PeakRss|HeapBytes).*|MeasuredMemoryPlan\..*|GPT\.GradientsMatchFiniteDifferences|ModuleGradients\..*|TrainCli\.InterruptSavesACheckpointAndResumes|RunFolder\.SecondRunIntoALockedFolderIsRefused|Distributed\..*)$$
build-sanitize: deps
	@cmake -S . -B build-asan $(call generator,build-asan) -DCMAKE_BUILD_TYPE=Sanitize > build-asan.configure.log 2>&1 || (cat build-asan.configure.log; exit 1)
	@cmake --build build-asan -j $(JOBS)

test-sanitize: build-sanitize
	@cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
		ctest --output-on-failure -j $(JOBS) -E '$(SANITIZE_EXCLUDE)'

# The demo builds the tinylm program alone (no test binaries) before its first step.
demo: configure
	@cmake --build $(BUILD) -j $(JOBS) --target tinylm
	@bash scripts/demo.sh $(BUILD)/tinylm

bench: deps
	@bash scripts/install-deps.sh --bench
	@bash bench/run.sh

format:
	@clang-format -i $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf $(BUILD) $(BUILD).configure.log build-asan build-asan.configure.log
