package corpus

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	v1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/webhooks"
)

// e2eRoot is the suites' directory, Root (tests/e2e/c5c3), located from
// this file (tests/e2e/corpus).
func e2eRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "c5c3")
}

func TestSuites_Validate(t *testing.T) {
	t.Parallel()
	for _, s := range Suites() {
		if err := s.Validate(); err != nil {
			t.Errorf("%s:\n%v", s.Dir, err)
		}
	}
}

// TestSuites_NoDrift is `gen --check` as a test: the committed fixtures are
// what the table renders, and no orphan file is left behind.
func TestSuites_NoDrift(t *testing.T) {
	t.Parallel()
	list := func(dir string) ([]string, error) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, e := range entries {
			if !e.IsDir() {
				out = append(out, e.Name())
			}
		}
		return out, nil
	}
	drift, err := Drift(e2eRoot(t), Suites(), os.ReadFile, list)
	if err != nil {
		t.Fatal(err)
	}
	if len(drift) > 0 {
		t.Fatalf("run `go run ./tests/e2e/corpus/gen`:\n%s", strings.Join(drift, "\n"))
	}
}

// TestSuites_EveryRuleHasAFixture checks that every CEL message and every
// webhook rule of the two seeded kinds is asserted by at least one fixture.
func TestSuites_EveryRuleHasAFixture(t *testing.T) {
	t.Parallel()
	messages := map[string][]string{}
	for _, s := range Suites() {
		for _, f := range s.Fixtures {
			messages[s.Dir] = append(messages[s.Dir], f.Message)
		}
	}
	covered := func(dir, want string) bool {
		for _, m := range messages[dir] {
			if strings.Contains(m, want) {
				return true
			}
		}
		return false
	}
	prefix := func(format string) string { return format[:strings.Index(format, "%")] }
	want := map[string][]string{
		"invalid-keystoneservice-cr": {
			v1.MsgKeystoneServiceNoBlock, v1.MsgControlPlaneRefNameImmutable, v1.MsgServiceTypeIdentity,
			v1.MsgServiceTypeImmutable, v1.MsgServiceNameImmutable, v1.MsgUserNameImmutable,
			v1.MsgAccountDomainNameImmutable, v1.MsgProjectNameImmutable, v1.MsgProjectCreateImmutable,
			prefix(webhooks.MsgServiceNameEffective), webhooks.MsgControlPlaneNamespaceResolved, prefix(webhooks.MsgNameTooLong),
			"Too many: 33: must have at most 32 items", "spec.catalog.endpoints[1]: Duplicate value",
			"spec.catalog.endpoints[0].url in body should match", "spec.catalog.endpoints[0].url: Too long: may not be more than 1024",
		},
		"invalid-keystoneapplicationcredential-cr": {
			v1.MsgUserRefImmutable, v1.MsgProjectRefImmutable, v1.MsgCredentialGenerationIncrease,
			v1.MsgIntervalZeroOrMinute, v1.MsgIntervalMax, v1.MsgGracePeriodNotNegative,
			v1.MsgGracePeriodShorterThanInterval, v1.MsgControlPlaneRefNameImmutable,
			v1.MsgControlPlaneRefNamespaceImmutable, v1.MsgMetadataNameMax63,
			"spec.userRef.name in body should be at least 1 chars long", "spec.userRef.name: Too long: may not be more than 63",
			"spec.projectRef.name in body should be at least 1 chars long", "spec.projectRef.name: Too long: may not be more than 63",
			"spec.credentialGeneration in body should be greater than or equal to 1",
		},
		"invalid-hub-cr": {
			v1.MsgOrderUserNameImmutable, v1.MsgOrderDomainNameImmutable, v1.MsgDefaultProjectRefImmutable,
			v1.MsgPasswordGenerationIncrease, v1.MsgOrderProjectNameImmutable, v1.MsgRoleImmutable,
			v1.MsgExternalRequiredIffExternalMode, v1.MsgExternalForbidsManagedFields, v1.MsgRotationTargetSelector,
			prefix(webhooks.MsgControlPlaneExists),
		},
	}
	for dir, msgs := range want {
		for _, m := range msgs {
			if !covered(dir, m) {
				t.Errorf("%s: no fixture asserts %q", dir, m)
			}
		}
	}
}
