package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// TestHelpCommand: "headroom help COMMAND" prints that command's help,
// exactly as "headroom COMMAND --help" does.
func TestHelpCommand(t *testing.T) {
	for _, name := range commandNames() {
		if name == "help" {
			continue
		}
		code, viaHelp, stderr := cli(t, "help", name)
		_, direct, _ := cli(t, name, "--help")
		if code != exitOK || stderr != "" || viaHelp != direct || !strings.Contains(viaHelp, "Usage: headroom "+name) {
			t.Errorf("help %s: exit %d, stderr %q, same as --help %v:\n%s", name, code, stderr, viaHelp == direct, viaHelp)
		}
	}
	if code, stdout, _ := cli(t, "help", "help"); code != exitOK || stdout != topUsage {
		t.Errorf("help help: exit %d", code)
	}
	code, stdout, stderr := cli(t, "help", "swep")
	if code != exitBadInput || stdout != "" || !strings.Contains(stderr, `unknown command "swep" (did you mean "sweep"?)`) {
		t.Errorf("help swep: exit %d, stderr %q", code, stderr)
	}
	if _, _, stderr := cli(t, "rnu"); !strings.Contains(stderr, `unknown command "rnu" (did you mean "run"?)`) {
		t.Errorf("rnu: %q", stderr)
	}
	if _, _, stderr := cli(t, "frobnicate"); strings.Contains(stderr, "did you mean") {
		t.Errorf("frobnicate is close to nothing: %q", stderr)
	}
}

// pflagLine is a flag line of pflag's --help output.
var pflagLine = regexp.MustCompile(`^\s+(?:-\w, )?(--[a-z][a-z-]*)`)

// TestCompletionHasEveryFlag: each shell's script names every command and
// every flag each command's --help lists.
func TestCompletionHasEveryFlag(t *testing.T) {
	scripts := map[string]string{}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, stdout, stderr := cli(t, "completion", sh)
		if code != exitOK || stderr != "" || stdout == "" {
			t.Fatalf("completion %s: exit %d, stderr %q", sh, code, stderr)
		}
		scripts[sh] = stdout
	}
	for _, name := range commandNames() {
		_, help, _ := cli(t, name, "--help")
		var flags []string
		for _, l := range strings.Split(help, "\n") {
			if m := pflagLine.FindStringSubmatch(l); m != nil && m[1] != "--help" {
				flags = append(flags, m[1])
			}
		}
		bashLine := regexp.MustCompile(`(?m)^    ` + name + `\) flags="([^"]*)"`).FindStringSubmatch(scripts["bash"])
		if bashLine == nil {
			t.Errorf("bash: no case for %s", name)
			continue
		}
		for _, f := range flags {
			if !strings.Contains(" "+bashLine[1]+" ", " "+f+" ") {
				t.Errorf("bash: %s lacks %s", name, f)
			}
			if !strings.Contains(scripts["fish"], "'__fish_seen_subcommand_from "+name+"' -l "+strings.TrimPrefix(f, "--")+" ") {
				t.Errorf("fish: %s lacks %s", name, f)
			}
		}
		if !strings.Contains(scripts["fish"], "__fish_use_subcommand -a "+name+" ") {
			t.Errorf("fish: no command %s", name)
		}
	}
	if !strings.HasPrefix(scripts["zsh"], "#compdef headroom\n") || !strings.Contains(scripts["zsh"], "bashcompinit") {
		t.Errorf("zsh script:\n%.200s", scripts["zsh"])
	}
	if code, _, stderr := cli(t, "completion", "tcsh"); code != exitBadInput || !strings.Contains(stderr, "bash, zsh or fish") {
		t.Errorf("tcsh: exit %d, %q", code, stderr)
	}
}

// TestBashCompletionCompletes sources the bash script and asks it what a
// few partial command lines complete to.
func TestBashCompletionCompletes(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	_, script, _ := cli(t, "completion", "bash")
	file := filepath.Join(t.TempDir(), "headroom.bash")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	probe := `source "$1"
t() { COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _headroom; echo "${COMPREPLY[*]}"; }
t headroom swe
t headroom run --js
t headroom run salesp
t headroom completion fi
t headroom help cal
`
	out, err := exec.Command(bash, "-c", probe, "probe", file).CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	want := "sweep\n--json\nsalespeople-peak\nfish\ncalibrate\n"
	if string(out) != want {
		t.Errorf("completions:\n%s\nwant:\n%s", out, want)
	}
}

// TestVersionFromBuildInfo: make's -ldflags win; a plain go build in a
// checkout reports the commit as make does; go install reports its
// module version; without either, the development version.
func TestVersionFromBuildInfo(t *testing.T) {
	rev := "8208858abcdef0123456789abcdef01234567890"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, c := range []struct {
		ldflags string
		bi      *debug.BuildInfo
		want    string
	}{
		{"251142a", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")}, "251142a"},
		{devVersion, &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201130231-8208858abcde+dirty"}, Settings: vcs("true")}, "8208858-dirty"},
		{devVersion, &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")}, "8208858"},
		{devVersion, &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}}, "v0.2.0"},
		{devVersion, &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, devVersion},
		{devVersion, nil, devVersion},
	} {
		if got := versionFrom(c.ldflags, c.bi, c.bi != nil); got != c.want {
			t.Errorf("versionFrom(%q, %+v) = %q, want %q", c.ldflags, c.bi, got, c.want)
		}
	}
}

// TestEveryCSVAnnounced: run --csv says it wrote each file it wrote.
func TestEveryCSVAnnounced(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "csv")
	code, stdout, stderr := cli(t, append([]string{"run", "--csv", dir}, short...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) < 3 {
		t.Fatalf("%v, %d files", err, len(entries))
	}
	for _, e := range entries {
		if !strings.Contains(stdout, "wrote "+filepath.Join(dir, e.Name())+"\n") {
			t.Errorf("wrote %s without saying so:\n%s", e.Name(), stdout)
		}
	}
}
