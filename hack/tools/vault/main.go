// Command vault is HashiCorp Vault v1.14.1 (the last MPL-2.0 release, the line
// OpenBao forked from), built here as the OpenBao-compatible server for tests
// and the local stack: the OpenBao server module is not obtainable on these
// machines. It is a wrapper because `go install` refuses Vault's replace lines;
// go.mod carries Vault's own pins so the dev server starts cleanly.
package main

import (
	"os"

	"github.com/hashicorp/vault/command"
)

func main() {
	os.Exit(command.Run(os.Args[1:]))
}
