package main

import (
	"reflect"
	"strings"
	"testing"
)

const page = "# x\n\n## Packages\nIntro naming `a/b`.\n\n### `a`\nOwns things. May import: `b`,\n`c/d`.\n\n" +
	"### `b`\nNothing. May import: nothing of the module.\n\n### Commands under `hack/`\nprose `x`\n\n## Next\n### `z`\n"

func TestParseSections(t *testing.T) {
	t.Parallel()
	got, err := parseSections(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"a": {"b", "c/d"}, "b": nil}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseSections = %v, want %v (only the Packages section, backquoted names after May import)", got, want)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	sections := map[string][]string{"a": {"b"}, "b": nil, "gone": nil}
	pkgs := parseImports(module + "/a|2|fmt," + module + "/b," + module + "/c\n" + module + "/b|1|\n" + module + "/new|1|\n" +
		module + "/hack/x|1|" + module + "/a\n" + module + "/testsonly|0|" + module + "/c")
	want := []string{
		"a imports c, which its \"May import\" list does not name",
		"package new has no section",
		"section gone names no package",
	}
	if got := check(sections, pkgs); !reflect.DeepEqual(got, want) {
		t.Errorf("check = %q, want %q", got, want)
	}
}
