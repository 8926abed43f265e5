# C-ITS warning platform on wasmCloud 1.x. `make help` lists the targets: each target's `##`
# comment is its line there.
#
# Everything comes from package registries (crates.io, Go module proxy, Debian) and is built once
# into $(CITS_CACHE), outside the clone; a second `make setup` finds it and takes seconds.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

# ---- pinned versions -------------------------------------------------------------------------
RUST_TOOLCHAIN   := 1.91.0# workspace, host, wadm, providers, actors (rust-toolchain.toml)
WASH_TOOLCHAIN   := 1.95.0# wash 0.43.0 is built with its own lockfile (--locked)
WASH_VERSION     := 0.43.0
NATS_VERSION     := 2.11.3
HOST_VERSION     := 1.9.2# wasmcloud-host 0.27.1 (platform/host)
WADM_VERSION     := 0.21.1
# wasmCloud's NATS KV secrets backend (the Redis password reaches the provider as a secret).
SECRETS_NATS_KV_VERSION := 0.2.0
# Compiles the VAM's ASN.1 into crates/etsi-its/src/vam/generated.rs (make codecs); its output
# builds on the workspace's rasn 0.30.
RASN_COMPILER_VERSION := 0.16.0
# Python tools for independent checks (map validation, ETSI cross-checks) and the bench plots.
PY_PACKAGES      := lanelet2==1.2.3 pycrate==0.8.1 pytest==9.2.0 matplotlib==3.11.2 asn1tools==0.169.0
# The dashboard's page libraries and browser-test driver: dashboard/package.json (exact versions,
# package-lock.json); its browser tests run Debian's Chromium (no browser download).
NODE_MAJOR       := 20
# wash up looks for this host version in its downloads dir (its default).
WASH_UP_HOST_VERSION := v1.9.1

# ---- locations -------------------------------------------------------------------------------
REPO       := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
CITS_CACHE ?= $(HOME)/.cache/cits
TOOLS      := $(CITS_CACHE)/tools
export CARGO_TARGET_DIR ?= $(CITS_CACHE)/target
export WASH_KEYS ?= $(CITS_CACHE)/keys

NATS_SERVER_BIN := $(TOOLS)/nats-server-$(NATS_VERSION)/nats-server
WASH_BIN        := $(TOOLS)/wash-$(WASH_VERSION)/bin/wash
SECRETS_BIN     := $(TOOLS)/secrets-nats-kv-$(SECRETS_NATS_KV_VERSION)/bin/secrets-nats-kv
RASN_COMPILER_BIN := $(TOOLS)/rasn-compiler-$(RASN_COMPILER_VERSION)/bin/rasn_compiler_cli
VAM_CODEC       := crates/etsi-its/src/vam/generated.rs
VAM_V3_CODEC    := crates/etsi-its/src/vam/v3/generated.rs
PLATFORM_DIR    := $(CARGO_TARGET_DIR)/platform
HOST_BIN        := $(PLATFORM_DIR)/wasmcloud
WADM_BIN_PATH   := $(PLATFORM_DIR)/wadm
CITS_BIN        := $(PLATFORM_DIR)/cits
POLICY_BIN      := $(PLATFORM_DIR)/cits-policy
DASHBOARD_BIN   := $(PLATFORM_DIR)/cits-dashboard
VENV            := $(CITS_CACHE)/venv-$(shell echo '$(PY_PACKAGES)' | md5sum | cut -c1-8)
PYTHON          := $(VENV)/bin/python
PROVIDERS       := messaging-nats blobstore-fs keyvalue-redis
PARS            := $(foreach p,$(PROVIDERS),build/providers/$(p).par)
ACTORS          := decoder collector assembler map_matcher predictor collision_detector denm_sender pipeline
ACTOR_WASMS     := $(foreach a,$(ACTORS),actors/$(a)/build/$(a)_s.wasm)
WASH_DOWNLOADS  ?= $(or $(WASH_DOWNLOADS_DIR),$(or $(XDG_DATA_HOME),$(HOME)/.local/share)/wash/downloads)

# Runtime (make run); the tests pick free ports of their own.
NATS_PORT  ?= 4222
REDIS_PORT ?= 6379
DASHBOARD_PORT ?= 8480
SPEED      ?= 1
# wasmCloud hosts in the lattice (make run HOSTS=2): every stage and provider runs on each.
HOSTS      ?= 1
# What the lattice is made of (make run TOPOLOGY=cluster): single (one nats-server, HOSTS hosts),
# cluster (three nats-servers in one cluster, streams R3, a host on each), edge (that cluster as the
# hub of an RSU site on a leaf node of its own: rsu1, and an edge host running the pipeline for it),
# or a topology file.
TOPOLOGY   ?= single
# A topology over several machines (docs/deploying.md, "Across machines"): the same TOPOLOGY file
# on each, MACHINE the address it names for that machine; `make init` on the first server's
# machine, its $(CITS_STATE)/auth and tls copied to the others', `make up` on every machine (each
# waits for what it needs of the others), `make deploy` on the first.
MACHINE    ?=
# RSUs speak MQTT in clear text to one server on loopback (1883), over TLS to a cluster (8883–8885)
# or a site's leaf node (8886), checked against the lattice's CA in $(CITS_STATE)/tls/ca.pem;
# `$(LATTICE) mqtt-port` says which listener an RSU of the topology connects to.
MQTT_PORT  ?= $(if $(filter single,$(TOPOLOGY)),1883,8883)
# The default recording: ≈3,300 CPMs over ≈3.5 min from the simulator (see data/default.truth.json).
RECORDING  ?= data/default.rec.b64
CITS_STATE ?= $(REPO)/.state

# The binaries `cits lattice` runs (the e2e tests start lattices of their own with them).
BIN_ENV = NATS_SERVER=$(NATS_SERVER_BIN) REDIS_SERVER=$$(command -v redis-server) \
	WASMCLOUD_HOST_BIN=$(HOST_BIN) WADM_BIN=$(WADM_BIN_PATH) WASH=$(WASH_BIN) CITS_TOOL=$(CITS_BIN) \
	CITS_POLICY=$(POLICY_BIN) CITS_DASHBOARD=$(DASHBOARD_BIN) SECRETS_NATS_KV=$(SECRETS_BIN)
# A replay faster than real time sends CPMs older than live: the age limit widens with it.
LATTICE_ENV = $(BIN_ENV) CITS_REPO=$(REPO) \
	NATS_PORT=$(NATS_PORT) MQTT_PORT=$(MQTT_PORT) REDIS_PORT=$(REDIS_PORT) CITS_STATE=$(CITS_STATE) HOSTS=$(HOSTS) \
	$(if $(filter single,$(TOPOLOGY)),,CITS_TOPOLOGY=$(TOPOLOGY)) $(if $(MACHINE),CITS_MACHINE=$(MACHINE)) \
	$(if $(filter 1,$(SPEED)),,MAX_AGE_MS=300000) DASHBOARD_PORT=$(DASHBOARD_PORT)
# The lattice's supervisor (crates/cits-ops/src/lattice): `$(LATTICE) up`, `deploy`, `down`, …
LATTICE = $(LATTICE_ENV) $(CITS_BIN) lattice

.PHONY: floor profile help setup build run init up deploy stop test test-unit test-python test-e2e bench chaos clean status inventory lint codecs codecs-check

help: ## this list
	@awk 'BEGIN { FS = ":[^#]*## " } /^[a-zA-Z0-9_.-]+:[^=]*## / { printf "  %-18s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

# ---- setup -----------------------------------------------------------------------------------
# What `make run` needs; `setup` adds the test and benchmark tools (wash, Python, Chromium).
setup-run: patches .setup-toolchains .setup-system $(NATS_SERVER_BIN) $(SECRETS_BIN) platform pars dashboard-deps ## what make run needs: toolchain, redis, nats-server, secrets backend, native binaries, provider archives, npm packages (cached)
	@echo "setup for make run complete: cache $(CITS_CACHE)"

setup: setup-run .setup-browser $(WASH_BIN) wash-downloads $(PYTHON) ## setup-run, then wash, Chromium and the Python venv for the tests and benchmarks
	@echo "setup complete: cache $(CITS_CACHE)"

.PHONY: setup-run .setup-toolchains .setup-system .setup-browser platform pars wash-downloads patches dashboard-deps
# Dependencies patched at build time (Cargo.toml [patch.crates-io]); see each script for why.
WRPC_NATS_PATCHED := build/patched/wrpc-transport-nats-0.29.0
WASMCLOUD_RUNTIME_PATCHED := build/patched/wasmcloud-runtime-0.12.0
WASMCLOUD_HOST_PATCHED := build/patched/wasmcloud-host-0.27.1
WADM_PATCHED := build/patched/wadm-0.21.1
C_ITS_PARSER_PATCHED := build/patched/c-its-parser-2.4.2
GEONETWORKING_PATCHED := build/patched/geonetworking-0.4.2
patches: $(WRPC_NATS_PATCHED)/.cits-patched $(WASMCLOUD_RUNTIME_PATCHED)/.cits-patched $(WASMCLOUD_HOST_PATCHED)/.cits-patched $(WADM_PATCHED)/.cits-patched $(C_ITS_PARSER_PATCHED)/.cits-patched $(GEONETWORKING_PATCHED)/.cits-patched ## fetch the crates patched at build time into build/patched/ (Cargo.toml [patch.crates-io])
$(WRPC_NATS_PATCHED)/.cits-patched: tools/patches/wrpc-transport-nats.sh tools/patches/crate.sh
	rm -rf $(WRPC_NATS_PATCHED)
	tools/patches/wrpc-transport-nats.sh $(WRPC_NATS_PATCHED)
$(WASMCLOUD_RUNTIME_PATCHED)/.cits-patched: tools/patches/wasmcloud-runtime.sh tools/patches/wasmcloud-runtime/tiered.rs tools/patches/crate.sh
	rm -rf $(WASMCLOUD_RUNTIME_PATCHED)
	tools/patches/wasmcloud-runtime.sh $(WASMCLOUD_RUNTIME_PATCHED)
$(WASMCLOUD_HOST_PATCHED)/.cits-patched: tools/patches/wasmcloud-host.sh tools/patches/crate.sh
	rm -rf $(WASMCLOUD_HOST_PATCHED)
	tools/patches/wasmcloud-host.sh $(WASMCLOUD_HOST_PATCHED)
$(WADM_PATCHED)/.cits-patched: tools/patches/wadm.sh tools/patches/crate.sh
	rm -rf $(WADM_PATCHED)
	tools/patches/wadm.sh $(WADM_PATCHED)
$(C_ITS_PARSER_PATCHED)/.cits-patched: tools/patches/c-its-parser.sh tools/patches/crate.sh
	rm -rf $(C_ITS_PARSER_PATCHED)
	tools/patches/c-its-parser.sh $(C_ITS_PARSER_PATCHED)
$(GEONETWORKING_PATCHED)/.cits-patched: tools/patches/geonetworking.sh tools/patches/crate.sh
	rm -rf $(GEONETWORKING_PATCHED)
	tools/patches/geonetworking.sh $(GEONETWORKING_PATCHED)

.setup-toolchains: ## rustc 1.91.0 (+ wasm32-wasip2, rustfmt, clippy)
	@rustup toolchain list | grep -q '^$(RUST_TOOLCHAIN)-' \
	  && rustup target list --installed --toolchain $(RUST_TOOLCHAIN) | grep -q '^wasm32-wasip2$$' \
	  && [ $$(rustup component list --installed --toolchain $(RUST_TOOLCHAIN) | grep -c '^rustfmt\|^clippy') = 2 ] \
	  || rustup toolchain install $(RUST_TOOLCHAIN) --profile minimal --component rustfmt,clippy --target wasm32-wasip2

.setup-system: ## redis-server from Debian; checks for Go and Node.js
	@if ! command -v redis-server >/dev/null; then \
	  echo "installing redis-server (Debian)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
	fi
	@command -v go >/dev/null || { echo "go is required to build nats-server"; exit 1; }
	@node --version | grep -q '^v$(NODE_MAJOR)\.' || { echo "Node.js $(NODE_MAJOR) is required (dashboard)"; exit 1; }

.setup-browser: ## chromium from Debian (the dashboard's browser tests)
	@if ! command -v chromium >/dev/null; then \
	  echo "installing chromium (Debian; the dashboard's browser tests)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi

# The page's libraries and the browser-test driver, as package-lock.json pins them.
dashboard-deps: dashboard/node_modules/.package-lock.json ## the dashboard's npm packages (npm ci)
dashboard/node_modules/.package-lock.json: dashboard/package.json dashboard/package-lock.json
	cd dashboard && npm ci --no-audit --no-fund --loglevel=error

$(PYTHON):
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check $(PY_PACKAGES)

$(NATS_SERVER_BIN):
	GOBIN=$(dir $@) GOFLAGS=-mod=mod go install github.com/nats-io/nats-server/v2@v$(NATS_VERSION)

# The tests deploy by hand with it (README "Deploying by hand"), `make inventory` asks with it.
$(WASH_BIN):
	@rustup toolchain list | grep -q '^$(WASH_TOOLCHAIN)-' || rustup toolchain install $(WASH_TOOLCHAIN) --profile minimal
	cargo +$(WASH_TOOLCHAIN) install wash --version $(WASH_VERSION) --locked \
	  --root $(TOOLS)/wash-$(WASH_VERSION) --target-dir $(CITS_CACHE)/target-wash

# Its own lockfile (--locked), the workspace's toolchain, a target dir of its own.
$(SECRETS_BIN):
	cargo +$(RUST_TOOLCHAIN) install secrets-nats-kv --version $(SECRETS_NATS_KV_VERSION) --locked \
	  --root $(TOOLS)/secrets-nats-kv-$(SECRETS_NATS_KV_VERSION) --target-dir $(CITS_CACHE)/target-secrets

# Every native binary of the workspace (Cargo.lock pins every crate), in one cargo invocation: the
# crates they share are then built once, with one feature set (built apart, the cits tool rebuilt
# 179 of them: 6 of a fresh machine's first 31 minutes).
NATIVE_PACKAGES := -p cits-wasmcloud-host -p cits-wadm -p cits-policy -p cits-sign \
	-p messaging-nats-provider -p blobstore-fs-provider -p keyvalue-redis-provider -p cits-cli -p cits-dashboard
platform: patches ## host, wadm, policy service, providers, signing tool, cits and cits-dashboard
	cargo build --locked --profile platform $(NATIVE_PACKAGES)

# Signed provider archives, re-packed only when a provider binary changed. Not gzipped: the host
# reads an archive whole on every provider start (tools/patches/wasmcloud-host.sh), and gunzipping
# 20 MB took longer there than reading three times the bytes (interleaved cold deploys → first
# DENM, docs/performance/2026-11-26.md).
pars: platform ## signed provider archives in build/providers/
	@mkdir -p build/providers
	@for p in $(PROVIDERS); do \
	  bin=$(PLATFORM_DIR)/$$p-provider par=build/providers/$$p.par; \
	  if [ ! -f $$par ] || [ $$bin -nt $$par ]; then \
	    echo "packaging $$par"; \
	    $(SIGN_BIN) provider $$bin --name cits-$$p --vendor cits --version $(VERSION) \
	      --wit-dir providers/$$p/wit --keys $(WASH_KEYS) --destination $$par >/dev/null; \
	  fi; \
	done

# `wash up` works offline with these in its downloads dir.
wash-downloads: ## seed wash's downloads dir so `wash up` works offline
	@mkdir -p $(WASH_DOWNLOADS)/$(WASH_UP_HOST_VERSION)
	@ln -sfn $(HOST_BIN) $(WASH_DOWNLOADS)/$(WASH_UP_HOST_VERSION)/wasmcloud_host
	@ln -sfn $(WADM_BIN_PATH) $(WASH_DOWNLOADS)/wadm
	@ln -sfn $(NATS_SERVER_BIN) $(WASH_DOWNLOADS)/nats-server

# ---- build -----------------------------------------------------------------------------------
build: actors $(CITS_BIN) ## actors (signed) and the cits and cits-dashboard binaries

# Optional ETSI codecs built into the decoder, DENM sender and fused components beyond the default
# manifests' (TS 103 324 CPMs and CAMs, bare or in GeoNetworking): a comma-separated list of cpm-v1
# (TR 103 562 CPMs), vam, denm-v2 (TS 103 831 DENMs), xer, or `all` (crates/etsi-its/src/codecs.rs).
CODECS ?=
ALL_CODECS := cpm-v1 vam denm-v2 xer
comma := ,
codecs_of = $(if $(filter all,$(1)),$(ALL_CODECS),$(subst $(comma), ,$(1)))
features_of = $(if $(strip $(1)),--features $(subst $(eval) ,$(comma),$(strip $(foreach c,$(call codecs_of,$(1)),cits/$(c)))))
SIGN_BIN := $(PLATFORM_DIR)/cits-sign
# One component: cargo build for wasm32-wasip2, copied to actors/<actor>/build/<name>.wasm and
# signed into <name>_s.wasm by cits-sign (keys in $(WASH_KEYS), as wash keeps them).
# $(1) actor, $(2) codecs, $(3) name.
define build_actor
cargo build --locked -q --release --target wasm32-wasip2 -p $(1) $(call features_of,$(2))
@mkdir -p actors/$(1)/build
@cp $(CARGO_TARGET_DIR)/wasm32-wasip2/release/$(1).wasm actors/$(1)/build/$(3).wasm
@{ $(SIGN_BIN) component actors/$(1)/build/$(3).wasm --name $(1) --version $(VERSION) --keys $(WASH_KEYS) 2>&1 >/dev/null | { grep -v '^BEFORE' || true; }; } >&2
@echo "actor $(3)_s.wasm: $$(stat -c %s actors/$(1)/build/$(3)_s.wasm) bytes"

endef
# The workspace's version, in every signed claim.
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)

actors: patches platform ## each actor built for wasm32-wasip2 and signed (CODECS=… adds codecs)
	$(foreach a,$(ACTORS),$(call build_actor,$(a),$(if $(filter decoder pipeline denm_sender,$(a)),$(CODECS)),$(a)))

# The fused component with every codec, for the end-to-end tests of the optional formats.
actors-all-codecs: patches platform ## the fused component with every codec (pipeline_all_codecs_s.wasm)
	$(call build_actor,pipeline,all,pipeline_all_codecs)

$(CITS_BIN): FORCE patches
	cargo build --locked --profile platform $(NATIVE_PACKAGES)

.PHONY: FORCE actors actors-all-codecs
FORCE:

# ---- run -------------------------------------------------------------------------------------
run: setup-run build ## start the lattice, deploy, replay RECORDING at SPEED, print DENMs; keeps running
	@$(LATTICE) down >/dev/null 2>&1 || true
	@rm -rf $(CITS_STATE)
	@trap '$(LATTICE) down' INT TERM; \
	$(LATTICE) up && \
	$(LATTICE) deploy && \
	$(LATTICE) dashboard-up && \
	$(LATTICE) probe && \
	CITS_AUTH=$(CITS_STATE)/auth CITS_MQTT_CA=$$(ls $(CITS_STATE)/tls/ca.pem 2>/dev/null) \
	  $(CITS_BIN) demo --file $(RECORDING) --nats 127.0.0.1:$$($(LATTICE) nats-port) \
	  --mqtt 127.0.0.1:$$($(LATTICE) mqtt-port) --speed $(SPEED) && \
	CITS_AUTH=$(CITS_STATE)/auth $(CITS_BIN) dlq --nats 127.0.0.1:$(NATS_PORT)
	@echo "The lattice keeps running: dashboard http://127.0.0.1:$(DASHBOARD_PORT)/ (operator password in $(CITS_STATE)/auth/dashboard.password); 'make inventory'; 'make stop' stops it."

init: setup-run build ## a lattice's credentials, certificates and server configs; starts nothing
	@$(LATTICE) init

up: setup-run build ## start the lattice, or this MACHINE's part of TOPOLOGY; what runs is kept
	@$(LATTICE) up

deploy: ## deploy the pipeline on the running lattice, then wait for a probe CPM to come out
	@$(LATTICE) deploy && $(LATTICE) probe

stop: ## stop everything `make run` started
	@$(LATTICE) down

status: ## what of the lattice is running
	@$(LATTICE) status

WASH_ENV = WASMCLOUD_CTL_PORT=$(NATS_PORT) WASH_CONTEXT_DIR=$(CITS_STATE)/wash/contexts \
	WASH_CTL_CREDS=$(CITS_STATE)/auth/users/operator.creds
inventory: $(WASH_BIN) ## `wash get inventory` and `wash app list` on the running lattice
	$(WASH_ENV) $(WASH_BIN) get inventory
	$(WASH_ENV) $(WASH_BIN) app list

# ---- bench -----------------------------------------------------------------------------------
# Default recording at each of BENCH_FACTORS against wasmCloud (seven actors), wasmCloud (fused) and
# the native baseline, back to back on one lattice; then many intersections: for each N of BENCH_RSUS
# the first BENCH_RSUS_SECONDS of it at 1x as N RSUs at once, each its own station and intersection
# (BENCH_RSUS= skips them). Report in results/latest (see tools/bench/run.sh).
BENCH_FACTORS ?= 1 2 4 8 16
BENCH_SYSTEMS ?= wasmcloud wasmcloud-fused native native-fused
BENCH_RSUS ?= 1 4 8 16 24 32 48
BENCH_RSUS_SECONDS ?= 60
# Then an hour at 1x as four RSUs on the same lattice, never cleaned: latency and memory stay flat.
BENCH_SOAK_MINUTES ?= 60
# Then the fused deployment on each topology (a lattice of its own each), RSU → DENM as the RSU
# sees it: one server, the R3 cluster, both edge placements, the cluster with NATS_SYNC=always,
# and the seven actors on the cluster.
BENCH_TOPOLOGIES ?= single cluster edge-hub edge-site cluster-sync cluster-seven
BENCH_TOPOLOGY_FACTORS ?= 1 16
bench: setup build ## benchmark BENCH_FACTORS x BENCH_SYSTEMS and BENCH_RSUS intersections
	@$(LATTICE_ENV) PYTHON=$(PYTHON) RECORDING=$(RECORDING) BENCH_FACTORS="$(BENCH_FACTORS)" \
	  BENCH_SYSTEMS="$(BENCH_SYSTEMS)" BENCH_RSUS="$(BENCH_RSUS)" BENCH_RSUS_SECONDS="$(BENCH_RSUS_SECONDS)" BENCH_SOAK_MINUTES="$(BENCH_SOAK_MINUTES)" \
	  BENCH_TOPOLOGIES="$(BENCH_TOPOLOGIES)" BENCH_TOPOLOGY_FACTORS="$(BENCH_TOPOLOGY_FACTORS)" \
	  tools/bench/run.sh

# The compute floor: the fused chain in memory on the default recording, native and as Wasm on the
# host's engine, from the same source and profile: what Wasm costs apart from the platform
# (crates/cits-floor, tools/bench/floor.sh; results/floor-<UTC time>/floor.md).
FLOOR_REPEATS ?= 3
floor: patches .setup-toolchains platform $(PYTHON) ## Wasm's own CPU cost: the fused chain in memory, native vs on the host's engine
	cargo build --locked -q --release -p cits-floor
	cargo build --locked -q --release --target wasm32-wasip2 -p cits-floor
	@CITS_TOOL=$(CITS_BIN) PYTHON=$(PYTHON) RECORDING=$(RECORDING) FLOOR_REPEATS=$(FLOOR_REPEATS) \
	  FLOOR_NATIVE=$(CARGO_TARGET_DIR)/release/cits-floor FLOOR_WASM=$(CARGO_TARGET_DIR)/wasm32-wasip2/release/cits-floor.wasm \
	  WASM_FLOOR_BIN=$(PLATFORM_DIR)/cits-wasm-floor tools/bench/floor.sh

# Where the CPU goes with PROFILE_RSUS intersections: perf over the whole machine during a replay of
# the fused deployment, as a flame graph (inferno) and samples per process (tools/bench/profile.sh).
PROFILE_RSUS ?= 32
PROFILE_SECONDS ?= 60
INFERNO_VERSION := 0.12.8
INFERNO_BIN := $(TOOLS)/inferno-$(INFERNO_VERSION)/bin
$(INFERNO_BIN)/inferno-flamegraph:
	cargo +$(RUST_TOOLCHAIN) install inferno --version $(INFERNO_VERSION) --locked \
	  --root $(TOOLS)/inferno-$(INFERNO_VERSION) --target-dir $(CITS_CACHE)/target-inferno
profile: setup-run build $(INFERNO_BIN)/inferno-flamegraph ## perf flame graph of PROFILE_RSUS intersections at 1x, fused deployment
	@$(LATTICE_ENV) INFERNO_BIN=$(INFERNO_BIN) SIGN_BIN=$(SIGN_BIN) RECORDING=$(RECORDING) PROFILE_RSUS=$(PROFILE_RSUS) \
	  PROFILE_SECONDS=$(PROFILE_SECONDS) tools/bench/profile.sh

# ---- codecs ----------------------------------------------------------------------------------
# The VAM codec is generated here (c-its-parser has none): pycrate's compilation of ETSI's ASN.1
# (the ASN.1 text is in no registry) written back out as ASN.1 by tools/codecs/pycrate_to_asn1.py,
# compiled by rasn-compiler, formatted by rustfmt; see tools/codecs/generate.sh. The generated Rust
# is committed; `codecs-check` (part of lint) regenerates it elsewhere and fails on a difference.
$(RASN_COMPILER_BIN):
	cargo +$(RUST_TOOLCHAIN) install rasn-compiler --version $(RASN_COMPILER_VERSION) --locked --features cli \
	  --root $(TOOLS)/rasn-compiler-$(RASN_COMPILER_VERSION) --target-dir $(CITS_CACHE)/target-rasn-compiler

codecs: $(PYTHON) $(RASN_COMPILER_BIN) ## regenerate the VAM codecs (crates/etsi-its/src/vam/generated.rs, vam/v3/generated.rs)
	tools/codecs/generate.sh $(PYTHON) $(RASN_COMPILER_BIN) $(VAM_CODEC) $(VAM_V3_CODEC)

codecs-check: $(PYTHON) $(RASN_COMPILER_BIN) ## the committed VAM codecs are what `make codecs` writes
	@out=$$(mktemp -d); trap 'rm -rf "$$out"' EXIT; \
	tools/codecs/generate.sh $(PYTHON) $(RASN_COMPILER_BIN) $$out/generated.rs $$out/v3.rs; \
	diff -u $(VAM_CODEC) $$out/generated.rs || { echo "$(VAM_CODEC) is not what make codecs writes" >&2; exit 1; }; \
	diff -u $(VAM_V3_CODEC) $$out/v3.rs || { echo "$(VAM_V3_CODEC) is not what make codecs writes" >&2; exit 1; }

# ---- test ------------------------------------------------------------------------------------
test: setup build ## lint, unit, fuzz smoke, Python cross-checks and end-to-end tests
	$(MAKE) lint test-unit test-fuzz test-python test-e2e

# Formatting (rustfmt.toml) and clippy with warnings as errors on our code: the workspace natively,
# the actors for their Wasm target, the fuzz workspace. Generated code (protobuf types, WIT
# bindings) is excluded where it is included (`#[allow(clippy::all)]` on its module).
WASM_ACTORS := $(foreach a,$(ACTORS),-p $(a)) -p cits-actor
# Allowed: clippy's type_complexity (a state map or a test's script reads clearer as the type it
# is than behind a one-use alias).
CLIPPY_ALLOW ?= -A clippy::type_complexity
lint: patches .setup-toolchains codecs-check ## cargo fmt --check, cargo clippy -D warnings, generated codecs current
	cargo fmt --all --check
	cargo fmt --manifest-path fuzz/Cargo.toml --all --check
	cargo metadata --locked --format-version 1 --manifest-path fuzz/Cargo.toml >/dev/null
	cargo clippy --locked --workspace --all-targets $(foreach a,$(ACTORS),--exclude $(a)) --exclude cits-actor -- \
	  -D warnings $(CLIPPY_ALLOW)
	cargo clippy --locked --target wasm32-wasip2 $(WASM_ACTORS) -- -D warnings $(CLIPPY_ALLOW)

test-unit: patches ## unit tests of the workspace crates
	NATS_SERVER=$(NATS_SERVER_BIN) cargo test --locked -p cits -p cits-jetstream -p cits-policy -p cits-nats-auth -p etsi-its -p keyvalue-redis-provider -p messaging-nats-provider -p blobstore-fs-provider -p cits-client -p cits-floor -p cits-map -p cits-manifest -p cits-ops -p cits-native -p cits-research -p cits-bench -p cits-cli -p cits-dashboard -p cits-sign

# Independent checks in Python: the map with the lanelet2 library, ETSI encodings with pycrate.
test-python: $(PYTHON) patches ## the map with lanelet2, ETSI encodings with pycrate
	cargo build --locked -q -p etsi-its --bin etsi-its-vectors
	ETSI_ITS_VECTORS=$(CARGO_TARGET_DIR)/debug/etsi-its-vectors CITS_TOOL=$(CITS_BIN) PYTHONDONTWRITEBYTECODE=1 \
	  $(PYTHON) -m pytest -q -p no:cacheprovider tests/python

# End-to-end: real NATS (JetStream + MQTT), Redis, wasmCloud host and wadm, deployed with wash.
test-e2e: patches actors-all-codecs ## end-to-end tests on the real stack (free ports)
	CITS_REPO=$(REPO) CITS_PYTHON=$(PYTHON) $(BIN_ENV) cargo test --locked -p cits-tests -- --test-threads=1

# Fuzzing (fuzz/, libFuzzer; see fuzz/README.md): the UPER CPM decoder, each stage's input, the
# state the stateful stages read back, the fused chain, seeded from data/*.rec.b64. `fuzz` runs all
# targets for FUZZ_SECONDS in all and reports inputs, exec/s and crashes per target; `test-fuzz` is
# the smoke of `test`: each target over its seeds plus FUZZ_SMOKE_RUNS inputs. In $(CITS_CACHE)/fuzz.
FUZZ_SECONDS    ?= 540
FUZZ_SMOKE_RUNS ?= 3000
.PHONY: fuzz test-fuzz
fuzz: patches .setup-toolchains ## every fuzz target for FUZZ_SECONDS in all
	CITS_CACHE=$(CITS_CACHE) fuzz/fuzz.sh run $(FUZZ_SECONDS)

test-fuzz: patches .setup-toolchains ## every fuzz target over its seeds plus FUZZ_SMOKE_RUNS inputs
	CITS_CACHE=$(CITS_CACHE) fuzz/fuzz.sh smoke $(FUZZ_SMOKE_RUNS)

# Fault injection with the default recording: every fault kind repeated during a 4x replay; prints
# the table of tests/chaos.rs (CHAOS_SEED repeats a run's fault times; CHAOS_KINDS=3 runs one row).
chaos: setup build ## fault injection during replays of the default recording
	CITS_REPO=$(REPO) CITS_PYTHON=$(PYTHON) $(BIN_ENV) cargo test --locked -p cits-tests --test chaos -- \
	  --ignored --nocapture --test-threads=1

clean: ## remove build output in the clone (not the cache)
	rm -rf build actors/*/build .state
