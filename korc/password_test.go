package korc

import "testing"

func TestPasswordGenerations(t *testing.T) {
	t.Parallel()
	name := RegistrationChildName("team", "glance", PasswordDiscriminator(12))
	if g, ok := GenerationOfPasswordRef(name); !ok || g != 12 {
		t.Fatalf("GenerationOfPasswordRef(%q) = %d, %t", name, g, ok)
	}
	for _, bad := range []string{"", "x-password-v", "x-password-v0", "x-password-v-1", "x-password-vx", "x-secret-v3"} {
		if g, ok := GenerationOfPasswordRef(bad); ok {
			t.Errorf("GenerationOfPasswordRef(%q) = %d, want not ok", bad, g)
		}
	}
	s := PasswordSecret(Child{Name: name, Namespace: "openstack", Labels: map[string]string{"a": "b"}}, 12, []byte("pw"), nil)
	if g, ok := PasswordGeneration(s); !ok || g != 12 || s.Labels["a"] != "b" || string(s.Data[PasswordKey]) != "pw" {
		t.Fatalf("PasswordSecret = %+v (generation %d %t)", s, g, ok)
	}
	s.Labels[LabelPasswordGeneration] = "0"
	if _, ok := PasswordGeneration(s); ok {
		t.Fatal("generation 0 accepted")
	}
}
