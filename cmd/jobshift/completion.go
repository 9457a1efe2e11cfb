package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/jobshift/jobshift/drivers"
)

// Shell completion without a completion library: the CLI is built on the
// standard flag package, and cobra (or posener/complete, which the nomad
// CLI uses) would mean describing every command and flag a second time,
// where they can drift apart. Instead the shell script asks the binary
// itself (`jobshift completion words ...`), which answers from the same
// command registry and FlagSets that parse the command line.

func init() {
	register("completion", "Print a shell completion script: jobshift completion bash|zsh|fish", runCompletion)
}

// lastFlagSet is the FlagSet the last command run created (newFlagSet).
var lastFlagSet *flag.FlagSet

const completionHelp = `
Usage: jobshift completion bash|zsh|fish

  Prints a completion script for the shell. Install it with, for example:

    jobshift completion bash > /etc/bash_completion.d/jobshift
    echo 'source <(jobshift completion zsh)' >> ~/.zshrc
    jobshift completion fish > ~/.config/fish/completions/jobshift.fish

  The script asks the jobshift on PATH for command and flag names, so it
  never goes out of date.
`

func runCompletion(args []string, stdout, stderr io.Writer) int {
	if len(args) >= 1 && args[0] == "words" {
		for _, w := range completionWords(args[1:]) {
			fmt.Fprintln(stdout, w)
		}
		return 0
	}
	if len(args) != 1 || scripts[args[0]] == "" {
		if len(args) == 1 && isHelpArg(args[0]) {
			fmt.Fprint(stdout, strings.TrimLeft(completionHelp, "\n"))
			return 0
		}
		fmt.Fprint(stderr, strings.TrimLeft(completionHelp, "\n"))
		return 2
	}
	fmt.Fprint(stdout, scripts[args[0]])
	return 0
}

// completionWords: no argument → the command names; "-to" → the targets;
// a command name → its flags.
func completionWords(args []string) []string {
	var out []string
	switch {
	case len(args) == 0:
		for n, c := range commands {
			if !strings.HasPrefix(c.synopsis, "(internal)") {
				out = append(out, n)
			}
		}
	case args[0] == "-to":
		out = append(out, drivers.Names()...)
	default:
		c, ok := commands[args[0]]
		if !ok || strings.HasPrefix(c.synopsis, "(internal)") {
			return nil
		}
		lastFlagSet = nil
		saved := helpOut
		helpOut = io.Discard
		c.run([]string{"-h"}, io.Discard, io.Discard) // builds the FlagSet, prints help to nowhere
		helpOut = saved
		if lastFlagSet != nil {
			lastFlagSet.VisitAll(func(f *flag.Flag) { out = append(out, "-"+f.Name) })
		}
	}
	sort.Strings(out)
	return out
}

var scripts = map[string]string{
	"bash": bashCompletion,
	"zsh":  "autoload -U +X bashcompinit && bashcompinit\n" + bashCompletion,
	"fish": `complete -c jobshift -f -n __fish_use_subcommand -a '(jobshift completion words)'
complete -c jobshift -n 'not __fish_use_subcommand' -a '(jobshift completion words (commandline -opc)[2])'
complete -c jobshift -n '__fish_seen_argument -o to' -f -a '(jobshift completion words -to)'
`,
}

const bashCompletion = `# jobshift completion (jobshift completion bash)
# COMPREPLY=($(compgen ...)) splits words on purpose, as bash-completion does
# shellcheck disable=SC2207
_jobshift() {
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$(jobshift completion words 2>/dev/null)" -- "$cur"))
		return
	fi
	if [ "$prev" = -to ]; then
		COMPREPLY=($(compgen -W "$(jobshift completion words -to 2>/dev/null)" -- "$cur"))
		return
	fi
	case $cur in
	-*) COMPREPLY=($(compgen -W "$(jobshift completion words "${COMP_WORDS[1]}" 2>/dev/null)" -- "$cur")) ;;
	*) COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
complete -o default -F _jobshift jobshift
`
