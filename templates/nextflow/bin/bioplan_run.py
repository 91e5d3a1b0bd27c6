#!/usr/bin/env python3
"""Run a bioplan step script (written for Snakemake's `script:`) from a Nextflow process.

    bioplan_run.py SCRIPT --input NAME=PATH... --output NAME=PATH... [--params JSON_FILE]
                   [--threads N] [--log PATH] [--rule NAME]

The step scripts read an injected `snakemake` object (input, output, params, log,
threads, rule). This builds the same object from the command line and runs the
script, so both targets share one implementation of every step. A name given
several times (--input bams=a.bam --input bams=b.bam) becomes a list.
"""

import argparse
import json
import os
import runpy
import sys


class Namedlist(list):
    """A list whose items are also attributes, like snakemake.io.Namedlist."""

    def __init__(self, pairs=()):
        super().__init__()
        self._names = {}
        for name, value in pairs:
            self._names[name] = value
            if isinstance(value, list):
                self.extend(value)
            else:
                self.append(value)

    def __getattr__(self, name):
        try:
            return self.__dict__["_names"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, key):
        # snakemake's Namedlist also indexes by name: snakemake.input["annotation"]
        if isinstance(key, str):
            try:
                return self._names[key]
            except KeyError:
                raise KeyError(key) from None
        return super().__getitem__(key)

    def get(self, name, default=None):
        return self._names.get(name, default)

    def keys(self):
        return self._names.keys()

    def items(self):
        return self._names.items()


def grouped(values):
    out = {}
    for item in values or []:
        name, sep, path = item.partition("=")
        if not sep:
            sys.exit(f"bioplan_run.py: expected NAME=PATH, got {item!r}")
        out.setdefault(name, []).append(path)
    return [(k, v[0] if len(v) == 1 else v) for k, v in out.items()]


class Snakemake:
    """The injected object a step script reads: input, output, params, log, threads, rule."""


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script")
    parser.add_argument("--input", action="append")
    parser.add_argument("--list-input", action="append", help="NAME=PATH, always a list")
    parser.add_argument("--output", action="append")
    parser.add_argument("--params")
    parser.add_argument("--list-param", action="append", help="NAME=VALUE, always a list (sample names)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--log", default="step.log")
    parser.add_argument("--rule", default="step")
    return parser.parse_args(argv)


def build_snakemake(args):
    """The `snakemake` object of a parsed command line (the tests build it the same way)."""
    inputs = grouped(args.input)
    listed = {}
    for item in args.list_input or []:
        name, _, path = item.partition("=")
        listed.setdefault(name, []).append(path)
    inputs += sorted(listed.items())
    params = {}
    if args.params:
        with open(args.params, encoding="utf-8") as fh:
            params = json.load(fh)
    for item in args.list_param or []:
        name, _, value = item.partition("=")
        params.setdefault(name, [])
        params[name] = list(params[name]) + [value]

    smk = Snakemake()
    smk.input = Namedlist(inputs)
    smk.output = Namedlist(grouped(args.output))
    smk.params = Namedlist(sorted(params.items()))
    smk.log = Namedlist([("log", args.log)])
    smk.threads = args.threads
    smk.rule = args.rule
    smk.wildcards = Namedlist()
    smk.config = {}
    return smk


def script_path(script):
    """A relative script name is one of the scripts beside this runner (the pipeline's bin/)."""
    return script if os.path.isabs(script) else os.path.join(os.path.dirname(os.path.abspath(__file__)), script)


def run_script(script, smk):
    """Run a step script with `snakemake` injected; its folder is on sys.path, as under Snakemake's
    `script:`, so it imports the helpers beside it (bioplan_step.py)."""
    folder = os.path.dirname(os.path.abspath(script))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    runpy.run_path(script, init_globals={"snakemake": smk}, run_name="__main__")


def main(argv=None):
    args = parse_args(argv)
    run_script(script_path(args.script), build_snakemake(args))


if __name__ == "__main__":
    main()
