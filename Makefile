# The two commands a newcomer needs are `make demo` and `make test`.
#
# PocketBase v0.40 needs Go 1.27. GOTOOLCHAIN=auto lets an older go command
# fetch that toolchain through the module proxy once (and overrides a
# machine-wide GOTOOLCHAIN=local); a Go that is new enough is used as it is.
export GOTOOLCHAIN := auto

.PHONY: demo test build vet fmt-check

demo: ## run the service on the embedded demo catalog (data in ./pb_demo)
	go run . demo

test: vet fmt-check ## the whole test suite, as CI runs it
	go test -count=1 ./...

build: ## a static, self-contained binary: ./enrichment
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o enrichment .

vet:
	go vet ./...

fmt-check:
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
