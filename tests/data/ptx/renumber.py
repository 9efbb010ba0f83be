# Makes reduce_renumbered.ptx: reduce_precise.ptx with every virtual register renumbered by a
# random bijection, labels renamed, .loc/.file lines and blank lines dropped, tabs turned
# into runs of spaces and a comment added: what two compilers emitting the same code
# could differ in.
import random, re, sys
random.seed(7)
src = open(sys.argv[1]).read()
src = "\n".join(l for l in src.splitlines() if not l.strip().startswith((".loc", ".file")) and l.strip())
maps = {}
def reg(m):
    p, n = m.group(1), int(m.group(2))
    mp = maps.setdefault(p, {})
    if n not in mp:
        used = set(mp.values())
        while True:
            c = random.randint(1, 999)
            if c not in used: break
        mp[n] = c
    return "%" + p + str(mp[n])
src = re.sub(r"%(rd|rs|r|fd|f|p)(\d+)\b", reg, src)
src = re.sub(r"%(rd|rs|r|fd|f|p)<(\d+)>", lambda m: "%" + m.group(1) + "<1000>", src)
src = re.sub(r"\$L__BB(\d+)_(\d+)", lambda m: "$L__BB%d_%d" % (int(m.group(1)) + 4, 40 - int(m.group(2))), src)
src = src.replace("\t", "    ").replace("ret;", "ret; // renumbered copy")
open(sys.argv[2], "w").write(src + "\n")
