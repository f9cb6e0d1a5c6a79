# The two commands a newcomer needs are `make demo` and `make test`.
#
# PocketBase v0.40 needs Go 1.27. GOTOOLCHAIN=auto lets an older go command
# fetch that toolchain through the module proxy once (and overrides a
# machine-wide GOTOOLCHAIN=local); a Go that is new enough is used as it is.
export GOTOOLCHAIN := auto

.PHONY: demo test quick tools build vet fmt-check staticcheck bench fuzz

demo: ## run the service on the embedded demo catalog (data in ./pb_demo)
	go run . demo

test: vet fmt-check staticcheck ## the whole test suite, as CI runs it
	go test -count=1 ./...
	$(MAKE) fuzz

# the packages of the inner loop: all but the browser's and the built
# binary's tests, which take minutes
QUICK_PACKAGES = $$(go list ./... | grep -v -e '/browser$$' -e '/browser/' -e '/e2e$$')

quick: vet fmt-check staticcheck ## the inner loop: checks and every package but browser/ and e2e/, test cache on, no fuzzing
	go test $(QUICK_PACKAGES)

# staticcheck, pinned. It must be built by a Go at least as new as the one
# go.mod names, so it is installed with the toolchain this module selects
# (go env GOVERSION here), not the one its own go.mod would pick.
STATICCHECK_VERSION = v0.8.2
STATICCHECK = $(shell go env GOPATH)/bin/staticcheck

tools: ## install the pinned staticcheck into $(go env GOPATH)/bin
	GOTOOLCHAIN=$$(go env GOVERSION) go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

staticcheck:
	@test -x $(STATICCHECK) || { echo "staticcheck missing: run make tools"; exit 1; }
	$(STATICCHECK) ./...

build: ## a static, self-contained binary: bin/enrichment (./enrichment is the domain package)
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o bin/enrichment .

# the catalog size of make bench; BENCHFLAGS adds any other flag of the
# harness (bench/README.md), e.g. BENCHFLAGS="-duration 3s -skip-peer"
PRODUCTS ?= 100000

bench: ## the load harness: PRODUCTS products (default 100k), every scenario, results in bench/results (a few minutes)
	go run ./bench -products $(PRODUCTS) $(BENCHFLAGS)

vet:
	go vet ./...

fmt-check:
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi

# Each fuzz target for FUZZTIME; -fuzz takes one package and one target at a
# time. New inputs are not minimized (1x) so the time goes to exploring; a
# failing input is written to the package's testdata/fuzz/<Target>/.
FUZZTIME ?= 7s
FUZZ = go test -run '^$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 1x -fuzz
fuzz: ## a short run of every fuzz target (under a minute with a warm build cache)
	$(FUZZ) '^FuzzParse$$' ./timeparam/
	$(FUZZ) '^FuzzChecks$$' ./enrichment/
	$(FUZZ) '^FuzzSubmissionRequest$$' ./routes/
	$(FUZZ) '^FuzzSKULookup$$' ./routes/
	$(FUZZ) '^FuzzHTTPReadEndpoints$$' ./routes/
	$(FUZZ) '^FuzzDecodeProduct$$' ./catalog/
