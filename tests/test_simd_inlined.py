"""The native module calls no SIMD intrinsic as a function.

The vector and max-sim kernels run inside one `pulp` dispatch whose target features let the
compiler inline every intrinsic as one instruction. Code the compiler builds as a function of
its own (a closure, a generic helper such as `array::map`) lacks those features, and then calls
each intrinsic out of line with its operands through memory: that once cost 40% of a bulk
load's time in the graph insert (docs/architecture.md, "The graph"). This test reads the
disassembly of the built module, so it catches the mistake wherever it comes back.
"""

from __future__ import annotations

import shutil
import subprocess
from collections import defaultdict

import hebbs._native as native

#: Intrinsics live in this module of `core`; an inlined one leaves no call to it.
INTRINSICS = "core::core_arch::"
#: Code allowed to: the standard library's CPU feature detection (`xgetbv`, once), and
#: aho-corasick's builder of its SIMD searcher (through `array::map`, once per pattern set of
#: tantivy's and regex's searches), neither on a path that runs per vector.
ALLOWED = ("std_detect::", "aho_corasick::")


def test_no_simd_intrinsic_is_called_out_of_line() -> None:
    objdump = shutil.which("objdump")
    assert objdump is not None, "objdump (binutils, installed with the C++ compiler) is needed"
    listing = subprocess.run(
        [objdump, "-d", "--no-show-raw-insn", "-C", native.__file__],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    function = ""
    callers: defaultdict[str, set[str]] = defaultdict(set)
    offending: defaultdict[str, list[str]] = defaultdict(list)
    for line in listing.splitlines():
        if line.endswith(">:"):
            function = line.split("<", 1)[1][:-2]
        elif "call" in line and line.endswith(">"):
            callee = line.split("<", 1)[1][:-1]
            if callee.startswith(INTRINSICS):
                offending[function].append(callee)
            else:
                callers[callee].add(function)
    assert function, "the disassembly listed no function"

    def allowed(name: str) -> bool:
        return name.startswith(ALLOWED)

    # A generic helper (`array::map`) is named after itself: it is allowed when only allowed
    # code calls it.
    found = [
        f"{name} calls {sorted(set(calls))}"
        for name, calls in offending.items()
        if not allowed(name)
        and not (callers[name] and all(allowed(caller) for caller in callers[name]))
    ]
    assert not found, "intrinsics called out of line:\n" + "\n".join(found[:20])
