package openbao

import (
	"strings"
	"testing"
)

func TestServiceAccountCredentialsPath(t *testing.T) {
	got, err := ServiceAccountCredentialsPath("openstack", "workflow")
	if err != nil {
		t.Fatal(err)
	}
	// docs/reference/keystoneservice.md, "Consumer Secret contract", Backing
	// path.
	if want := "openstack/keystone/openstack/workflow/service-accounts/credentials"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestApplicationCredentialPath(t *testing.T) {
	got, err := ApplicationCredentialPath("openstack", "workflow-appcred-1a2b3c4d-applicationcredential")
	if err != nil {
		t.Fatal(err)
	}
	// docs/reference/keystoneapplicationcredential.md, "Delivered Secret
	// contract", Backing path.
	if want := "openstack/keystone/openstack/workflow-appcred-1a2b3c4d-applicationcredential/service-accounts/application-credential"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	for _, prefix := range []string{"workflow-appcred", "-applicationcredential", ""} {
		if _, err := ApplicationCredentialPath("openstack", prefix); err == nil {
			t.Errorf("prefix %q accepted", prefix)
		}
	}
}

func TestUserPasswordPath(t *testing.T) {
	got, err := UserPasswordPath("openstack", "workflow-1a2b3c4d-user")
	if err != nil {
		t.Fatal(err)
	}
	// docs/reference/keystoneuser.md, "Delivered Secret contract", Backing
	// path.
	if want := "openstack/keystone/openstack/workflow-1a2b3c4d-user/service-accounts/password"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	for _, prefix := range []string{"workflow-1a2b3c4d-applicationcredential", "-user", "", "Workflow-user"} {
		if _, err := UserPasswordPath("openstack", prefix); err == nil {
			t.Errorf("prefix %q accepted", prefix)
		}
	}
}

func TestAdminApplicationCredentialPath(t *testing.T) {
	got, err := AdminApplicationCredentialPath("openstack", "cp")
	if err != nil || got != "openstack/keystone/openstack/cp/admin/app-credential" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestPathSegmentsRejected(t *testing.T) {
	for _, seg := range []string{"", ".", "..", "a/b", "A", "a b", "a\nb", strings.Repeat("a", 254)} {
		if p, err := ServiceAccountCredentialsPath(seg, "x"); err == nil {
			t.Errorf("namespace %q accepted: %s", seg, p)
		}
		if p, err := ServiceAccountCredentialsPath("x", seg); err == nil {
			t.Errorf("name %q accepted: %s", seg, p)
		}
	}
	if _, err := ServiceAccountCredentialsPath("a.b", strings.Repeat("a", 253)); err != nil {
		t.Errorf("valid names refused: %v", err)
	}
}

func TestRawPaths(t *testing.T) {
	if got := DataPath("kv-v2", "a/b"); got != "kv-v2/data/a/b" {
		t.Error(got)
	}
	if got := MetadataPath("kv-v2", "a/b"); got != "kv-v2/metadata/a/b" {
		t.Error(got)
	}
}
