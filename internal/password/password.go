// Package password generates the secrets orderhub hands to Keystone and
// RabbitMQ: passwords of Keystone users (KeystoneService accounts,
// KeystoneUser orders), application-credential secrets, and the passwords of
// topology Users created without an import Secret.
//
// The alphabet is the rule of docs/reference/keystoneuser.md, "Generated
// passwords": upper-case letters A–Z and digits 2–7 only (RFC 4648 base32),
// so a password never begins with "-" and holds no character a shell, a
// command-line parser, a URL or a YAML/INI file treats specially. It is safe
// on a command line (`openstack --os-password`, `rabbitmqctl`), in a
// transport URL and unquoted in an OpenStack-Helm init script.
package password

import "crypto/rand"

// Length is the length of a generated password in characters: two
// crypto/rand.Text draws of 26 base32 characters each, 5 bits a character,
// so 260 bits of entropy (at least 256 is the rule).
const Length = 52

// Alphabet is every character a generated password can contain.
const Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

// New returns a fresh password of Length characters from Alphabet. It
// cannot fail: crypto/rand.Text panics rather than return a weak value
// (see https://pkg.go.dev/crypto/rand#Text), which is why this package
// uses it instead of its own encoding of random bytes.
func New() []byte {
	return []byte(rand.Text() + rand.Text())
}
