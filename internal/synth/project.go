package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// component is one package of the fictional service the agent works on.
type component struct {
	name    string   // directory under src/, e.g. "ingest"
	noun    string   // how prose calls it, e.g. "parser"
	doc     string   // module docstring
	files   []string // modules that exist from the start
	test    string   // main test module
	funcs   []string // function names defined in the package
	consts  []string // module-level constants
	classes []string // classes and exceptions
}

// bug is a defect the agent reproduces in one phase and fixes in the next.
type bug struct {
	comp   int    // index into componentBank
	title  string // "ingest test", as in "reproduce the failing ingest test"
	test   string // failing test function
	fn     string // function under test
	assert string // the failing assert statement
	err    string // the AssertionError line
	cause  string // root cause, as the agent eventually explains it
}

// feature is something the agent adds in a feature phase.
type feature struct {
	comp    int      // index into componentBank
	name    string   // "caching layer"
	files   []string // files the feature creates
	setting string   // settings key that configures it
}

// componentBank lists the packages of the fictional service. Read-only.
var componentBank = []component{
	{"ingest", "parser", "Header and row parsing for CSV and NDJSON ingest.",
		[]string{"src/ingest/parser.py", "src/ingest/reader.py", "src/ingest/schema.py", "src/ingest/__init__.py"},
		"tests/test_ingest.py",
		[]string{"parse_header", "parse_row", "split_fields", "detect_delimiter", "read_batches"},
		[]string{"MAX_FIELDS", "DELIMITER", "RETRY_BUDGET"},
		[]string{"IngestError", "HeaderSpec", "BatchReader"}},
	{"cache", "cache", "In-process LRU cache with TTL-based expiry.",
		[]string{"src/cache/lru.py", "src/cache/store.py", "src/cache/keys.py"},
		"tests/test_cache.py",
		[]string{"cache_key", "get_or_load", "evict_expired", "warm_cache"},
		[]string{"CACHE_TTL_SECONDS", "CACHE_MAX_ENTRIES"},
		[]string{"LRUCache", "CacheStore", "CacheMiss"}},
	{"api", "HTTP API", "HTTP routes and middleware for the public API.",
		[]string{"src/api/server.py", "src/api/routes.py", "src/api/middleware.py"},
		"tests/test_api.py",
		[]string{"create_app", "list_records", "health_check", "paginate"},
		[]string{"DEFAULT_PAGE_SIZE", "API_PREFIX", "REQUEST_TIMEOUT"},
		[]string{"RecordHandler", "ApiError", "Page"}},
	{"scheduler", "job scheduler", "Job queue, workers and retry policy.",
		[]string{"src/scheduler/jobs.py", "src/scheduler/queue.py", "src/scheduler/worker.py"},
		"tests/test_scheduler.py",
		[]string{"enqueue", "dequeue_ready", "run_worker", "retry_with_backoff"},
		[]string{"MAX_ATTEMPTS", "BACKOFF_BASE_MS", "POLL_INTERVAL"},
		[]string{"JobQueue", "Worker", "JobState"}},
	{"storage", "storage backend", "Object storage backends used by the exporter.",
		[]string{"src/storage/base.py", "src/storage/local.py", "src/storage/batching.py"},
		"tests/test_storage.py",
		[]string{"put_object", "get_object", "list_prefix", "flush_batch"},
		[]string{"CHUNK_SIZE", "MAX_BATCH_SIZE"},
		[]string{"StorageBackend", "LocalBackend", "StorageError"}},
	{"auth", "token validation", "API token issuing and verification.",
		[]string{"src/auth/tokens.py", "src/auth/keys.py"},
		"tests/test_auth.py",
		[]string{"verify_token", "issue_token", "load_jwks", "decode_claims"},
		[]string{"TOKEN_LEEWAY_S", "JWKS_URL"},
		[]string{"TokenError", "KeyRing", "Claims"}},
	{"config", "settings loader", "Settings loading from YAML with environment overrides.",
		[]string{"src/config/settings.py", "src/config/defaults.py"},
		"tests/test_config.py",
		[]string{"load_settings", "merge_env", "validate_settings"},
		[]string{"SETTINGS_PATH", "ENV_PREFIX"},
		[]string{"Settings", "SettingsError"}},
	{"metrics", "metrics exporter", "Latency histograms and counters.",
		[]string{"src/metrics/registry.py", "src/metrics/exporter.py"},
		"tests/test_metrics.py",
		[]string{"record_latency", "export_text", "counter", "observe"},
		[]string{"HISTOGRAM_BUCKETS", "METRICS_NAMESPACE"},
		[]string{"MetricsRegistry", "Histogram"}},
}

// bugBank lists the defects, one per component index. Read-only.
var bugBank = []bug{
	{0, "ingest test", "test_parse_header_multiline", "parse_header",
		`assert header == ["id", "name", "ts", "payload", "source"]`,
		`AssertionError: assert ['id', 'name', 'ts', 'payload'] == ['id', 'name', 'ts', 'payload', 'source']`,
		"parse_header stops at the first newline even when the header is quoted across two lines"},
	{1, "cache eviction test", "test_evict_expired", "evict_expired",
		`assert len(cache) == 0`,
		`AssertionError: assert 3 == 0`,
		"evict_expired compares time.monotonic() against wall-clock timestamps stored by get_or_load"},
	{2, "pagination test", "test_list_records_pagination", "paginate",
		`assert len(page.items) == DEFAULT_PAGE_SIZE`,
		`AssertionError: assert 49 == 50`,
		"paginate computes the end index as offset + limit - 1 when offset is non-zero"},
	{3, "retry test", "test_retry_with_backoff", "retry_with_backoff",
		`assert calls == MAX_ATTEMPTS`,
		`AssertionError: assert 4 == 5`,
		"retry_with_backoff decrements the attempt budget before the first call"},
	{4, "batch flush test", "test_flush_batch_partial", "flush_batch",
		`assert store.put_calls == 3`,
		`AssertionError: assert 2 == 3`,
		"flush_batch drops the trailing partial chunk when the item count is not a multiple of MAX_BATCH_SIZE"},
	{5, "token expiry test", "test_verify_token_expired", "verify_token",
		`assert raised, "expired token was accepted"`,
		`AssertionError: expired token was accepted`,
		"verify_token adds TOKEN_LEEWAY_S twice when it checks the exp claim"},
	{6, "settings override test", "test_env_overrides_yaml", "merge_env",
		`assert settings.retry_budget == 5`,
		`AssertionError: assert 3 == 5`,
		"merge_env lower-cases environment keys, so the override never matches the YAML key"},
	{7, "histogram bucket test", "test_latency_buckets", "record_latency",
		`assert hist.buckets == [0.05, 0.1, 0.5, 1.0]`,
		`AssertionError: assert [0.1, 0.5, 1.0] == [0.05, 0.1, 0.5, 1.0]`,
		"HISTOGRAM_BUCKETS is parsed from settings as strings and sorted lexically"},
}

// featureBank lists the features. Read-only.
var featureBank = []feature{
	{1, "caching layer", []string{"src/cache/ttl.py", "tests/test_cache_ttl.py", "docs/caching.md"}, "cache.ttl_seconds"},
	{3, "retry with exponential backoff", []string{"src/scheduler/backoff.py", "tests/test_backoff.py"}, "scheduler.backoff_base_ms"},
	{2, "rate-limiting middleware", []string{"src/api/ratelimit.py", "tests/test_ratelimit.py", "docs/rate-limits.md"}, "api.rate_limit_per_minute"},
	{7, "Prometheus metrics endpoint", []string{"src/metrics/prometheus.py", "tests/test_prometheus.py"}, "metrics.enabled"},
	{4, "S3 storage backend", []string{"src/storage/s3.py", "tests/test_s3_backend.py", "docs/storage.md"}, "storage.s3_bucket"},
	{0, "batch ingestion mode", []string{"src/ingest/batch.py", "tests/test_batch_ingest.py"}, "ingest.batch_size"},
	{5, "signing-key rotation", []string{"src/auth/rotation.py", "tests/test_key_rotation.py"}, "auth.rotation_days"},
	{6, "environment overrides for settings", []string{"src/config/env.py", "tests/test_env_overrides.py"}, "config.env_prefix"},
}

var (
	projectNames = []string{"tidewater", "lumen", "quarry", "harbor", "sable", "kestrel", "marlin", "ferrous"}
	ownerNames   = []string{"acme-data", "northwind", "orbital-labs", "bluefin", "granite-io"}
	dependencies = []string{"requests", "pydantic", "PyYAML", "uvicorn", "starlette", "boto3", "prometheus-client", "httpx", "orjson"}
	projectFiles = []string{
		"README.md", "pyproject.toml", "requirements.txt", "requirements-dev.txt", "CHANGELOG.md",
		"Makefile", ".github/workflows/ci.yml", "config/settings.yaml", "config/logging.yaml",
		"docs/index.md", "docs/architecture.md", "docs/configuration.md",
		"scripts/release.sh", "scripts/dev_server.sh", "scripts/replay_batch.py", "tests/conftest.py",
		"tests/fixtures/sample.csv", "tests/fixtures/multiline_header.csv",
	}
	commonConsts = []string{"RETRY_BUDGET", "DEFAULT_TIMEOUT", "LOG_LEVEL"}
)

// project is the fictional repository of one run, chosen by seed.
type project struct {
	name     string // Python package and repository name
	owner    string // GitHub owner
	port     int    // dev server port
	upstream string // base URL of an upstream API
	bugs     []int  // bugBank order for this run
	features []int  // featureBank order for this run
	version  [3]int // current release
}

// newProject picks the repository for a run.
func newProject(r *rand.Rand) *project {
	p := &project{
		name:     pick(r, projectNames),
		owner:    pick(r, ownerNames),
		port:     pick(r, []int{8080, 8000, 5000, 9090}),
		bugs:     r.Perm(len(bugBank)),
		features: r.Perm(len(featureBank)),
		version:  [3]int{1, 2 + r.IntN(5), r.IntN(4)},
	}
	p.upstream = fmt.Sprintf("https://api.%s.example.com/v2", pick(r, []string{"meridian", "polaris", "corvid", "atlas"}))
	return p
}

// versionString formats the current version as "1.4.0".
func (p *project) versionString() string {
	return fmt.Sprintf("%d.%d.%d", p.version[0], p.version[1], p.version[2])
}

// host is the dev server's host:port.
func (p *project) host() string { return fmt.Sprintf("localhost:%d", p.port) }

// registry tracks which files exist in the fictional repository, in a
// deterministic order, so that reads, moves and deletes stay consistent.
type registry struct {
	files []string
	set   map[string]bool
	core  map[string]bool // files that are never moved or deleted
	gone  []string        // recently moved or deleted paths (for wrong guesses)
}

func newRegistry() *registry {
	reg := &registry{set: map[string]bool{}, core: map[string]bool{}}
	for _, f := range projectFiles {
		reg.add(f)
		reg.core[f] = !strings.HasPrefix(f, "docs/") || f == "docs/index.md"
	}
	for _, c := range componentBank {
		for _, f := range c.files {
			reg.add(f)
			reg.core[f] = true
		}
		reg.add(c.test)
		reg.core[c.test] = true
	}
	return reg
}

func (reg *registry) has(p string) bool { return reg.set[p] }

func (reg *registry) add(p string) {
	if !reg.set[p] {
		reg.set[p] = true
		reg.files = append(reg.files, p)
	}
}

func (reg *registry) remove(p string) {
	if !reg.set[p] {
		return
	}
	delete(reg.set, p)
	for i, f := range reg.files {
		if f == p {
			reg.files = append(reg.files[:i], reg.files[i+1:]...)
			break
		}
	}
	reg.gone = append(reg.gone, p)
	if len(reg.gone) > 16 {
		reg.gone = reg.gone[1:]
	}
}

// under returns the files whose path starts with prefix, in registry order.
func (reg *registry) under(prefix string) []string {
	var out []string
	for _, f := range reg.files {
		if strings.HasPrefix(f, prefix) {
			out = append(out, f)
		}
	}
	return out
}

// movable returns files that may be moved or deleted.
func (reg *registry) movable() []string {
	var out []string
	for _, f := range reg.files {
		if !reg.core[f] {
			out = append(out, f)
		}
	}
	return out
}

// children lists the direct entries of dir: files, and subdirectories with a
// trailing slash.
func (reg *registry) children(dir string) []string {
	prefix := dir + "/"
	if dir == "." || dir == "" {
		prefix = ""
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range reg.files {
		if !strings.HasPrefix(f, prefix) {
			continue
		}
		rest := f[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			rest = rest[:i+1]
		}
		if !seen[rest] {
			seen[rest] = true
			out = append(out, rest)
		}
	}
	return out
}

// pick returns a random element of xs.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// chance reports true with probability num/den.
func chance(r *rand.Rand, num, den int) bool { return r.IntN(den) < num }

// between returns a random int in [lo, hi].
func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// pyModule turns a source path into a dotted module name.
func pyModule(p string) string {
	p = strings.TrimPrefix(p, "src/")
	p = strings.TrimSuffix(p, ".py")
	return strings.ReplaceAll(p, "/", ".")
}
