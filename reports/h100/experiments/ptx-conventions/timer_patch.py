#!/usr/bin/env python3
"""EXPERIMENT ptx-conventions: in-kernel timing for every entry of a PTX. Each gets one more
parameter, a global pointer to two u64 slots; thread 0 of each group does
atom.min(slot[0], %globaltimer) on entry and atom.max(slot[1], %globaltimer) before each ret.
Usage: timer_patch.py IN OUT"""
import re, sys
lines = open(sys.argv[1]).read().split("\n")
out, entry, state, nret = [], None, None, 0
for i, ln in enumerate(lines):
    m = re.match(r"\s*(?:\.visible\s+)?\.entry\s+(\w+)\s*\(", ln)
    if m:
        entry, state = m.group(1), "params"
        out.append(ln)
        continue
    if state == "params":
        if ln.strip() == ")":
            # close the parameter list with one more parameter
            last = out[-1]
            if not last.rstrip().endswith(","):
                out[-1] = last.rstrip() + ","
            out.append(f"\t.param .u64 .ptr .global .align 8 {entry}_param_tbt")
            out.append(ln)
            state = "directives"
            continue
        out.append(ln)
        continue
    if state == "directives" and ln.strip() == "{":
        out += [ln, "\t.reg .pred %tbp;", "\t.reg .b32 %tbr;", "\t.reg .b64 %tbt<2>;"]
        state = "decls"
        continue
    if state == "decls":
        s = ln.strip()
        if s == "" or s.startswith(".reg") or s.startswith(".shared") or s.startswith(".local") or s.startswith("//"):
            out.append(ln)
            continue
        out += ["\tmov.u32 %tbr, %tid.x;", "\tsetp.ne.u32 %tbp, %tbr, 0;", "\t@%tbp bra $TB_S;",
                "\tmov.u64 %tbt0, %globaltimer;", f"\tld.param.u64 %tbt1, [{entry}_param_tbt];",
                "\tatom.global.min.u64 %tbt0, [%tbt1], %tbt0;", "$TB_S:"]
        state = "body"
    if state == "body":
        if re.match(r"\s*@.*\bret;", ln):
            sys.exit(f"predicated ret in {entry}")
        if re.match(r"\s*ret;", ln):
            nret += 1
            out += ["\tmov.u32 %tbr, %tid.x;", "\tsetp.ne.u32 %tbp, %tbr, 0;", f"\t@%tbp bra $TB_E{nret};",
                    "\tmov.u64 %tbt0, %globaltimer;", f"\tld.param.u64 %tbt1, [{entry}_param_tbt];",
                    "\tadd.u64 %tbt1, %tbt1, 8;", "\tatom.global.max.u64 %tbt0, [%tbt1], %tbt0;", f"$TB_E{nret}:"]
        if ln.startswith("}"):
            state = None
    out.append(ln)
open(sys.argv[2], "w").write("\n".join(out))
print(f"timer_patch: {nret} rets instrumented")
