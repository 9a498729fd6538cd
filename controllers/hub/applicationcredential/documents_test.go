package applicationcredential

import (
	"strings"
	"testing"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"

	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/korc"
)

func TestMintCloudData(t *testing.T) {
	t.Parallel()
	base := MintParams{AuthURL: "https://keystone.example/v3", UserID: "uid", UserName: "workflow", UserDomain: "Default",
		Password: []byte("pw"), ProjectID: "pid", ProjectName: "p", ProjectDomain: "Default", Region: "RegionOne", Interface: "internal"}
	data, err := MintCloudData(base)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cloudsyaml.ParseCloud(data[cloudsyaml.Key], MintCloudName)
	if err != nil {
		t.Fatal(err)
	}
	if c.AuthInfo.UserID != "uid" || c.AuthInfo.Username != "" || c.AuthInfo.ProjectID != "pid" || c.AuthInfo.ProjectName != "" ||
		c.AuthInfo.Password != "pw" || c.RegionName != "RegionOne" || c.Interface != "internal" {
		t.Errorf("ids preferred over names: %+v", c)
	}
	if _, ok := data[orcv1alpha1.CloudCredencialsCASecretKey]; ok {
		t.Error("no CA bundle given, yet a cacert key")
	}

	names := base
	names.UserID, names.ProjectID, names.CABundle = "", "", []byte("PEM")
	data, err = MintCloudData(names)
	if err != nil {
		t.Fatal(err)
	}
	c, _ = cloudsyaml.ParseCloud(data[cloudsyaml.Key], MintCloudName)
	if c.AuthInfo.Username != "workflow" || c.AuthInfo.UserDomainName != "Default" || c.AuthInfo.ProjectName != "p" || c.AuthInfo.ProjectDomainName != "Default" {
		t.Errorf("names without ids: %+v", c.AuthInfo)
	}
	if string(data[orcv1alpha1.CloudCredencialsCASecretKey]) != "PEM" {
		t.Error("the CA bundle is K-ORC's cacert key")
	}

	for name, p := range map[string]MintParams{
		"no password": {AuthURL: base.AuthURL, UserID: "u", ProjectID: "p"},
		"no project":  {AuthURL: base.AuthURL, UserID: "u", Password: []byte("secret-pw")},
		"no auth URL": {UserID: "u", ProjectID: "p", Password: []byte("secret-pw")},
	} {
		_, err := MintCloudData(p)
		if err == nil {
			t.Errorf("%s: accepted", name)
		} else if strings.Contains(err.Error(), "secret-pw") {
			t.Errorf("%s: the error carries the password", name)
		}
	}
}

func TestDeliveredData(t *testing.T) {
	t.Parallel()
	data, err := DeliveredData(DeliveredParams{CloudName: "workflow-appcred", AuthURL: "http://k:5000/v3", ID: "acid",
		Secret: "s3cret", Region: "RegionOne", Interface: "public"})
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != len(DeliveredKeys) {
		t.Fatalf("keys %v, want %v", data, DeliveredKeys)
	}
	for _, k := range DeliveredKeys {
		if len(data[k]) == 0 {
			t.Errorf("key %s missing", k)
		}
	}
	c, err := cloudsyaml.ParseCloud(data[cloudsyaml.Key], "workflow-appcred")
	if err != nil {
		t.Fatal(err)
	}
	if c.AuthType != cloudsyaml.AuthTypeV3ApplicationCredential || c.AuthInfo.ApplicationCredentialID != "acid" ||
		c.AuthInfo.ApplicationCredentialSecret != "s3cret" || c.CACertFile != "" || c.AuthInfo.ProjectName != "" {
		t.Errorf("document %+v", c)
	}
	if string(data["application_credential_id"]) != "acid" || string(data["application_credential_secret"]) != "s3cret" {
		t.Error("the id and secret keys disagree with the document")
	}
	if _, err := DeliveredData(DeliveredParams{CloudName: "x", AuthURL: "http://k/v3", ID: "acid"}); err == nil {
		t.Error("a document without secret was accepted")
	}
}

func TestGenerationOfChild(t *testing.T) {
	t.Parallel()
	prefix := korc.OrderChildName(korc.InfixApplicationCredential, "", "ns", "ac", "")
	for _, tc := range []struct {
		name string
		gen  int64
		ok   bool
	}{
		{prefix + korc.CredentialDiscriminator(3), 3, true},
		{prefix + korc.SecretDiscriminator(12), 12, true},
		{prefix + korc.DiscMintCloud, 0, false},
		{prefix + "credential-v0", 0, false},
		{prefix + "credential-v07", 0, false},
		{prefix + "credential-vx", 0, false},
		{"other-" + korc.CredentialDiscriminator(3), 0, false},
	} {
		if g, ok := GenerationOfChild(prefix, tc.name); g != tc.gen || ok != tc.ok {
			t.Errorf("GenerationOfChild(%q) = %d, %t, want %d, %t", tc.name, g, ok, tc.gen, tc.ok)
		}
	}
}

func TestLatchedTransportError(t *testing.T) {
	t.Parallel()
	failed := func(reason, msg string) korc.State {
		return korc.State{Phase: korc.PhaseFailed, Reason: reason, Message: msg}
	}
	inv := orcv1alpha1.ConditionReasonInvalidConfiguration
	for _, tc := range []struct {
		name string
		s    korc.State
		want bool
	}{
		{"refused connection on create", failed(inv, `invalid configuration creating resource: Post "http://k:5000/v3/users/u/application_credentials": dial tcp 10.0.0.1:5000: connect: connection refused`), true},
		{"Keystone answered 409", failed(inv, "invalid configuration creating resource: Expected HTTP response code [201] when accessing [POST http://k/v3/users/u/application_credentials], but got 409 instead: conflict"), false},
		{"other terminal error", failed(orcv1alpha1.ConditionReasonUnrecoverableError, "resource has been deleted from OpenStack"), false},
		{"progressing transient error", korc.State{Phase: korc.PhaseProgressing, Reason: inv, Message: "invalid configuration creating resource: dial tcp"}, false},
	} {
		if got := LatchedTransportError(tc.s); got != tc.want {
			t.Errorf("%s: LatchedTransportError = %t, want %t", tc.name, got, tc.want)
		}
	}
}

func TestAuthenticationFailure(t *testing.T) {
	t.Parallel()
	msg401 := "invalid configuration creating resource: Unable to re-authenticate: Expected HTTP response code [201] when accessing " +
		"[POST http://k/v3/users/u/application_credentials], but got 401 instead: {\"error\":{\"code\":401}}"
	for _, tc := range []struct {
		s    korc.State
		want bool
	}{
		{korc.State{Phase: korc.PhaseFailed, Message: msg401}, true},
		{korc.State{Phase: korc.PhaseProgressing, Message: msg401}, false},
		{korc.State{Phase: korc.PhaseFailed, Message: "Expected HTTP response code [201] ..., but got 409 instead"}, false},
		{korc.State{Phase: korc.PhaseFailed, Message: "dial tcp: connection refused"}, false},
	} {
		if got := AuthenticationFailure(tc.s); got != tc.want {
			t.Errorf("AuthenticationFailure(%+v) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestCreatableGenerationAndAdoptableChild(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		gen, cur, prev int64
		ok             bool
	}{{1, 0, 0, true}, {3, 2, 1, true}, {2, 2, 1, false}, {1, 2, 1, false}, {2, 1, 3, false}} {
		if err := CreatableGeneration(tc.gen, tc.cur, tc.prev); (err == nil) != tc.ok {
			t.Errorf("CreatableGeneration(%d, %d, %d) = %v, want ok %v", tc.gen, tc.cur, tc.prev, err, tc.ok)
		}
	}
	want := map[string]string{"a": "1", "b": "2"}
	if err := AdoptableChild("K", "n", map[string]string{"a": "1", "b": "2", "x": "y"}, want, false); err != nil {
		t.Errorf("own child refused: %v", err)
	}
	if err := AdoptableChild("K", "n", map[string]string{"a": "1", "b": "3"}, want, false); err == nil || !strings.Contains(err.Error(), "not this order's") {
		t.Errorf("foreign child adopted: %v", err)
	}
	if err := AdoptableChild("K", "n", want, want, true); err == nil || !strings.Contains(err.Error(), "being deleted") {
		t.Errorf("deleting child adopted: %v", err)
	}
}

func TestMintPasswordGenerationOf(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]int64{"3": 3, "": 0, "x": 0, "-1": 0, "0": 0} {
		if got := MintPasswordGenerationOf(map[string]string{AnnotationMintPasswordGeneration: v}); got != want {
			t.Errorf("MintPasswordGenerationOf(%q) = %d, want %d", v, got, want)
		}
	}
}
