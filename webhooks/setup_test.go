package webhooks

import (
	"testing"
)

func TestConfigurations_PointAtTheURL(t *testing.T) {
	t.Parallel()
	m, v := Configurations("https://127.0.0.1:9443/", []byte("CA"))
	if len(m.Webhooks) != 1 || len(v.Webhooks) != 2 {
		t.Fatalf("webhooks: %d mutating, %d validating", len(m.Webhooks), len(v.Webhooks))
	}
	want := map[string]string{
		webhookMutateKeystoneService:   "https://127.0.0.1:9443" + PathMutateKeystoneService,
		webhookValidateKeystoneService: "https://127.0.0.1:9443" + PathValidateKeystoneService,
		webhookValidateControlPlane:    "https://127.0.0.1:9443" + PathValidateControlPlane,
	}
	check := func(name string, url *string, ca []byte) {
		if url == nil || *url != want[name] {
			t.Errorf("%s URL = %v, want %s", name, url, want[name])
		}
		if string(ca) != "CA" {
			t.Errorf("%s CA bundle not set", name)
		}
	}
	check(m.Webhooks[0].Name, m.Webhooks[0].ClientConfig.URL, m.Webhooks[0].ClientConfig.CABundle)
	for _, w := range v.Webhooks {
		check(w.Name, w.ClientConfig.URL, w.ClientConfig.CABundle)
		if *w.FailurePolicy != "Fail" {
			t.Errorf("%s failurePolicy %s", w.Name, *w.FailurePolicy)
		}
	}
	if ops := v.Webhooks[1].Rules[0].Operations; len(ops) != 1 || ops[0] != "CREATE" {
		t.Errorf("ControlPlane webhook must bind on CREATE only: %v", ops)
	}
}
