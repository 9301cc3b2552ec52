"""chain_kkt.py NAME N OUT — writes the spec of the N-link chain in its angles (dense M;
tests/bench/chain_specs.py) with its tip held on a vertical line and one velocity
row scaled by a parameter c (c = 0 makes its row of J zero), for the tests of
the runtime's LAPACK KKT solve (test_kkt_lapack.c)."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import chain_specs  # noqa: E402

name, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
_, text = chain_specs.angles_spec(n)
tip = sum(math.sin(chain_specs.angle(i)) for i in range(1, n + 1))  # the tip's x, all l_i = 1
x = " + ".join(f"l{i}*sin(th{i})" for i in range(1, n + 1))
text = text.replace(f'name = "chain_a{n}"', f'name = "{name}"')
text = text.replace("[parameters]\n", "[parameters]\nc = 1.0\n")
with open(out, "w") as f:
    f.write(text + f'''
[constraints]
holonomic = ["{x} - {tip!r}"]
nonholonomic = ["c*(cos(th2)*th1' - th3')"]

[stabilization]
alpha = 10.0
beta = 25.0
''')
