package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/headroom-sim/headroom/scenarios"
)

const completionUsage = `Usage: headroom completion bash|zsh|fish

Prints a shell completion script: commands, each command's flags, the
embedded examples' names, and the files a command reads (.toml scenarios,
.json part files, .csv measurements). The flags are read from each
command's own --help, so the script is always in step with the binary.

Examples:
  source <(headroom completion bash)                 # this shell
  headroom completion bash > /etc/bash_completion.d/headroom
  headroom completion zsh > "${fpath[1]}/_headroom"  # then restart zsh
  headroom completion fish > ~/.config/fish/completions/headroom.fish

`

// cmdCompletion prints the completion script for a shell.
func cmdCompletion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("completion", completionUsage, stdout, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return badInput("completion takes one shell, bash, zsh or fish; got %d arguments", fs.NArg())
	}
	specs, err := completionSpecs()
	if err != nil {
		return err
	}
	var script string
	switch fs.Arg(0) {
	case "bash":
		script = bashCompletion(specs)
	case "zsh":
		script = zshCompletion(specs)
	case "fish":
		script = fishCompletion(specs)
	default:
		return badInput("completion: unknown shell %q; want bash, zsh or fish", fs.Arg(0))
	}
	_, err = io.WriteString(stdout, script)
	return err
}

// flagSpec is one flag as a command's --help gives it.
type flagSpec struct {
	long, short string
	// value is the flag's value placeholder ("FILE", "N"), "" for a switch.
	value string
	help  string
}

// commandSpec is what completion knows of a command.
type commandSpec struct {
	command
	summary string
	flags   []flagSpec
}

// flagLine matches a flag in pflag's PrintDefaults: "  -q,
// --quiet[=true|false]  text" or "      --json FILE  text".
var flagLine = regexp.MustCompile(`^\s+(?:-([A-Za-z0-9]), )?--([A-Za-z0-9][A-Za-z0-9-]*)(?:\[=[^\]]*\])?(?: (\S+))?\s{2,}(.*)$`)

// completionSpecs reads every command's flags from its --help, and its
// summary from the general help.
func completionSpecs() ([]commandSpec, error) {
	summaries := map[string]string{}
	summary := regexp.MustCompile(`^headroom (\S+)(?:.*?\S)?\s{2,}(\S.*)$`)
	usage, _, _ := strings.Cut(topUsage, "\nExamples:")
	for _, l := range strings.Split(usage, "\n") {
		if m := summary.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			summaries[m[1]] = m[2]
		}
	}
	var out []commandSpec
	for _, c := range commandTable() {
		s := commandSpec{command: c, summary: summaries[c.name]}
		if c.run != nil {
			var help, errb bytes.Buffer
			if err := c.run([]string{"--help"}, &help, &errb); err != nil && err != errHelp {
				return nil, fmt.Errorf("completion: %s --help: %w", c.name, err)
			}
			// The flag list pflag prints comes last; a usage text that
			// mentions a flag before it gives way to it.
			at := map[string]int{}
			for _, l := range strings.Split(help.String(), "\n") {
				m := flagLine.FindStringSubmatch(l)
				if m == nil || m[2] == "help" {
					continue
				}
				f := flagSpec{short: m[1], long: m[2], value: m[3], help: strings.TrimSpace(m[4])}
				if i, ok := at[f.long]; ok {
					s.flags[i] = f
					continue
				}
				at[f.long] = len(s.flags)
				s.flags = append(s.flags, f)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// exampleNames lists the embedded examples, sorted.
func exampleNames() []string {
	var out []string
	for _, e := range scenarios.Examples() {
		out = append(out, e.Name)
	}
	sort.Strings(out)
	return out
}

// flagWords lists a command's flags as typed: --json, -q.
func flagWords(s commandSpec) []string {
	var out []string
	for _, f := range s.flags {
		out = append(out, "--"+f.long)
		if f.short != "" {
			out = append(out, "-"+f.short)
		}
	}
	return out
}

// valueKind says what a flag's value completes to: "file", "dir" or
// "" (nothing to complete).
func valueKind(f flagSpec) string {
	switch {
	case f.value == "DIR" || f.long == "csv" && strings.Contains(f.help, "DIR"):
		return "dir"
	case f.value == "FILE" || f.value == "PATH":
		return "file"
	}
	return ""
}

// fileGlob is the pattern a command's positional files match.
func fileGlob(args string) string {
	switch args {
	case "scenario", "toml":
		return "*.toml"
	case "json":
		return "*.json"
	case "csv":
		return "*.csv"
	}
	return ""
}

func bashCompletion(specs []commandSpec) string {
	var b strings.Builder
	b.WriteString(`# bash completion for headroom (headroom completion bash)
_headroom() {
  local cur prev cmd
  cur="${COMP_WORDS[COMP_CWORD]}"
  prev="${COMP_WORDS[COMP_CWORD-1]}"
  COMPREPLY=()
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "`)
	b.WriteString(strings.Join(commandNames(), " "))
	b.WriteString(` --help --version" -- "$cur") )
    return
  fi
  cmd="${COMP_WORDS[1]}"
  local flags="" args="" files="" dirs=""
  case "$cmd" in
`)
	for _, s := range specs {
		var files, dirs []string
		for _, f := range s.flags {
			switch valueKind(f) {
			case "file":
				files = append(files, "--"+f.long)
			case "dir":
				dirs = append(dirs, "--"+f.long)
			}
		}
		fmt.Fprintf(&b, "    %s) flags=%q; args=%q; files=%q; dirs=%q ;;\n", s.name, strings.Join(flagWords(s), " "), s.args,
			" "+strings.Join(files, " ")+" ", " "+strings.Join(dirs, " ")+" ")
	}
	b.WriteString(`  esac
  if [[ "$files" == *" $prev "* ]]; then COMPREPLY=( $(compgen -f -- "$cur") ); return; fi
  if [[ "$dirs" == *" $prev "* ]]; then COMPREPLY=( $(compgen -d -- "$cur") ); return; fi
  if [[ "$cur" == -* ]]; then COMPREPLY=( $(compgen -W "$flags --help" -- "$cur") ); return; fi
  case "$args" in
    scenario|example) COMPREPLY=( $(compgen -W "`)
	b.WriteString(strings.Join(exampleNames(), " "))
	b.WriteString(`" -- "$cur") ) ;;
    shell) COMPREPLY=( $(compgen -W "bash zsh fish" -- "$cur") ); return ;;
    command) COMPREPLY=( $(compgen -W "`)
	b.WriteString(strings.Join(commandNames(), " "))
	b.WriteString(`" -- "$cur") ); return ;;
    "") return ;;
  esac
  [ "$args" = example ] && return
  local ext
  case "$args" in scenario|toml) ext=toml ;; json) ext=json ;; csv) ext=csv ;; esac
  COMPREPLY+=( $(compgen -d -- "$cur") $(compgen -f -X "!*.$ext" -- "$cur") )
}
complete -o filenames -F _headroom headroom
`)
	return b.String()
}

// zshCompletion runs the bash completion through zsh's bashcompinit,
// which every zsh ships.
func zshCompletion(specs []commandSpec) string {
	return "#compdef headroom\n# zsh completion for headroom (headroom completion zsh), through bashcompinit\n" +
		"autoload -U +X bashcompinit && bashcompinit\n" + bashCompletion(specs)
}

func fishCompletion(specs []commandSpec) string {
	var b strings.Builder
	b.WriteString("# fish completion for headroom (headroom completion fish)\ncomplete -c headroom -f\n")
	quote := func(s string) string {
		return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
	}
	for _, s := range specs {
		fmt.Fprintf(&b, "complete -c headroom -n __fish_use_subcommand -a %s -d %s\n", s.name, quote(s.summary))
	}
	for _, s := range specs {
		cond := "'__fish_seen_subcommand_from " + s.name + "'"
		for _, f := range s.flags {
			fmt.Fprintf(&b, "complete -c headroom -n %s -l %s", cond, f.long)
			if f.short != "" {
				fmt.Fprintf(&b, " -s %s", f.short)
			}
			switch valueKind(f) {
			case "file":
				b.WriteString(" -r -F")
			case "dir":
				b.WriteString(" -r -a '(__fish_complete_directories)'")
			default:
				if f.value != "" {
					b.WriteString(" -r")
				}
			}
			fmt.Fprintf(&b, " -d %s\n", quote(f.help))
		}
		switch s.args {
		case "scenario", "example":
			fmt.Fprintf(&b, "complete -c headroom -n %s -a %s\n", cond, quote(strings.Join(exampleNames(), " ")))
		case "shell":
			fmt.Fprintf(&b, "complete -c headroom -n %s -a 'bash zsh fish'\n", cond)
		case "command":
			fmt.Fprintf(&b, "complete -c headroom -n %s -a %s\n", cond, quote(strings.Join(commandNames(), " ")))
		}
		if g := fileGlob(s.args); g != "" {
			fmt.Fprintf(&b, "complete -c headroom -n %s -a '(__fish_complete_suffix %s)'\n", cond, strings.TrimPrefix(g, "*"))
		}
	}
	return b.String()
}
