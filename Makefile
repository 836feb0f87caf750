# The two commands of the README, plus helpers. Each installs what it needs first.
BUILD ?= build
JOBS  ?= $(shell nproc)

.PHONY: deps build test demo bench clean format

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release > $(BUILD).configure.log 2>&1 || (cat $(BUILD).configure.log; exit 1)
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@bash scripts/install-deps.sh --test
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)/tinylm

bench: deps
	@bash scripts/install-deps.sh --bench
	@bash bench/run.sh

format:
	@clang-format -i $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf $(BUILD) $(BUILD).configure.log
