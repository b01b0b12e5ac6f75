"""`porthamiltonian.compile.outline`: repeated blocks of the generated right-hand side made calls
of one helper, and aliases dropped.

References: the lines themselves (a helper's body is the block with its names renamed and
its slices' bounds passed in); the compiled right-hand side of the 8-foot rimless wheel
(eight sliding-plane feet, every block of a foot outlined) against the same source compiled
without outlining, which must agree to the bit (the helpers run the same kernels on the same
arrays in the same order), and against the Python right-hand side
(`tests/kernels/test_compiled_rhs.py` covers every registered model)."""

import importlib
import re
import sys

import numpy as np
import pytest

from porthamiltonian.compile.outline import dealias, outline, prune
from porthamiltonian.models import build_model

_jit = importlib.import_module("porthamiltonian.compile.jit")

MODULE = {"np", "_sp", "_k0", "_k1", "_mva", "_cat"}


def _foot(i, at):
    """A foot's block, as the generator writes it (its names carry the element's index)."""
    return [
        f"    J{i}, b{i}, g{i}, SC{i} = _k0(t, _sp(x, {at}, {at + 7}), (_sp(x, 0, 7), _E, ), _sp(F, {10 * i}, {10 * i + 5}))",
        f"    F{i} = _cat(f0, f1)",
        f"    c{i} = _mva(J{i}, F{i}, b{i})",
    ]


def test_repeated_blocks_become_calls_of_one_helper_with_the_bounds_passed_in():
    lines, blocks = ["    _E = np.zeros(0)"], []
    for i in range(3):
        blocks.append((len(lines), len(lines) + 3))
        lines += _foot(i, 13 + 7 * i)
    lines += ["    if not (_fin(J0) and _fin(J1)):", "        return xdot", "    y = c0 + c1 + c2 + g0 + SC2[0]"]
    out, helpers = outline(lines, blocks, MODULE, min_uses=3)
    assert len(helpers) == 1
    src = helpers[0]
    # the body: the block renamed, every bound a parameter, the kernels and numpy kept by name
    assert "v0, v1, v2, v3 = _k0(a0, _sp(a1, a2, a3), (_sp(a1, a4, a5), a6), _sp(a7, a8, a9))" in src
    assert "v4 = _cat(a10, a11)" in src and "v5 = _mva(v0, v4, v1)" in src
    # returned: what the rest of the function reads (J for the test, g of the first foot, c,
    # SC of the last); b and F are the block's own
    assert "return v0, v2, v3, v5" in src
    assert out[1] == "    J0, g0, SC0, c0 = _h0(t, x, 13, 20, 0, 7, _E, F, 0, 5, f0, f1)"
    assert out[3] == "    J2, g2, SC2, c2 = _h0(t, x, 27, 34, 0, 7, _E, F, 20, 25, f0, f1)"
    assert out[4:] == lines[-3:]
    # fewer uses than asked: left inline
    assert outline(lines, blocks, MODULE, min_uses=4) == (lines, [])


def test_a_compound_statement_splits_a_block_and_a_tuple_item_keeps_its_index():
    lines = []
    blocks = []
    for i in range(2):
        start = len(lines)
        lines += [f"    _o{i} = _k1(t, _sp(x, {5 * i}, {5 * i + 5}))",
                  f"    SH{i} = _o{i}[3]",
                  f"    if SH{i}[0] != 0:",
                  "        return xdot",
                  f"    e{i} = _o{i}[0]",
                  f"    d{i} = _cat(e{i}, e{i})",
                  f"    xdot[{40 + i}] = _mva(SH{i}[2], d{i}, e{i})"]
        blocks.append((start, len(lines)))
    lines.append("    z = SH0[1] + SH1[1]")
    out, helpers = outline(lines, blocks, MODULE, min_uses=2)
    # the first run has one call: left inline; the second (after the test) becomes a helper
    assert len(helpers) == 1
    assert "v0 = a0[0]" in helpers[0]          # a tuple's item: its literal index
    assert "a2[a3] = _mva(a1[2], v1, v0)" in helpers[0]   # the index a value is stored at: a parameter
    assert "return" not in helpers[0]          # e and d are read by nothing after their block
    assert out[:4] == lines[:4]
    assert out[4] == "    _h0(_o0, SH0, xdot, 40)"
    assert out[5:9] == lines[7:11]
    assert out[9] == "    _h0(_o1, SH1, xdot, 41)"


def test_dealias_reads_the_original_name_and_keeps_rebound_ones():
    lines = ["    f0 = _k0(x)", "    f2 = f0", "    f3 = f2", "    d = f3 + f2",
             "    _d = _k1(x)", "    g = _d", "    _d = np.zeros(3)", "    h = g + _d"]
    assert dealias(lines, [(0, 3), (3, 8)]) == (
        ["    f0 = _k0(x)", "    d = f0 + f0", "    _d = _k1(x)", "    g = _d", "    _d = np.zeros(3)", "    h = g + _d"],
        [(0, 1), (1, 6)])


def test_prune_drops_what_nothing_reads_and_keeps_writes_compound_statements_and_rebindings():
    """Chains of unread names go (``b`` read only by the unread ``c``), a name read after its
    rebinding keeps its last binding only, a ``_put`` and a compound statement with its body
    stay whatever they bind; the blocks' ranges follow the kept lines."""
    lines = ["    a = _k0(x)",            # read by d
             "    b = _sp(x, 0, 3)",      # read only by c, which nothing reads
             "    c = (b, _E)",
             "    _o = _k1(x)",           # rebound before any read: dropped
             "    _o = _k1(a)",
             "    d = _o[0] + a",
             "    _put(xdot, 0, d)",
             "    if not _fin(xdot):",
             "        return xdot, 2",
             "    e = -d"]                # unread
    out, blocks = prune(lines, [(0, 4), (4, 10)])
    assert out == ["    a = _k0(x)", "    _o = _k1(a)", "    d = _o[0] + a", "    _put(xdot, 0, d)",
                   "    if not _fin(xdot):", "        return xdot, 2"]
    assert blocks == [(0, 1), (1, 6)]


def _compiled(system, min_uses, monkeypatch):
    """The compiled right-hand side of `system` generated with `min_uses` (its own module)."""
    monkeypatch.setattr(_jit, "outline", lambda lines, blocks, module: outline(lines, blocks, module,
                                                                                min_uses=min_uses))
    src, F, I = _jit.generate_jit(system._plan)
    mod = _jit.load_jit(src, prefix=f"porthamiltonian_outline_test_{min_uses}")
    return mod.rhs, F, I, src


@pytest.mark.parametrize("contact", ["sliding_plane", "compliant"])
def test_an_outlined_right_hand_side_equals_the_inline_one_to_the_bit(contact, monkeypatch):
    """Bit-identical by construction (module docstring), so compared exactly; the Python path
    agrees within round-off (the algebra kernels sum in their own order). On compliant feet a
    foot's spring, slip and damper laws are one helper (the body's twist reaches each damper
    through copies, which join the damper's block: `_JitGen.order_steps`), and the bodies'
    rate references no tangent reads are pruned."""
    import porthamiltonian as ph

    model = build_model("rimless-wheel", contact=contact)
    system = ph.compile(model.graph, baumgarte=model.baumgarte)
    x0 = system.initial_state(model.initial)
    traj = ph.simulate(system, (0.0, 0.3), x0, **model.solver)
    outlined, F, I, src = _compiled(system, 6, monkeypatch)
    inline, F2, I2, src2 = _compiled(system, 10**9, monkeypatch)
    body = src.split("def rhs")[1]
    assert "_h0(" in body and "_h0" not in src2 and not re.search(r"\brr\d+ =", src + src2)
    if contact == "sliding_plane":
        assert src.count("= separate(_h") >= 4
    else:   # the damper law's kernel is called in the helper only
        damper = re.search(r"from porthamiltonian.kernels.compliant import damper_law as (_k\d+)_", src)[1]
        assert f"{damper}(" in src.split("def rhs")[0] and f"{damper}(" not in body
    np.testing.assert_array_equal(F, F2)
    for x in traj.x[:: max(1, len(traj.x) // 10)]:
        a = outlined(0.0, x, system._u0, F, I)
        b = inline(0.0, x, system._u0, F2, I2)
        assert a[1] == b[1] == 0
        for u, v in zip(a[:1] + a[2:], b[:1] + b[2:]):
            np.testing.assert_array_equal(u, v)
        ref = system._rhs(0.0, x, system._u0, False)
        np.testing.assert_allclose(a[0], ref, rtol=1e-12, atol=1e-12 * (1.0 + np.abs(ref).max()))
    for name in [n for n in sys.modules if n.startswith("porthamiltonian_outline_test_")]:
        del sys.modules[name]


@pytest.mark.parametrize("name, kernel", [("robot-drop", "joint_spring_outputs"), ("robot-drop", "joint_damper_law"),
                                          ("quadruped-trot", "resistor_law")])
def test_a_robots_joints_and_a_trots_controllers_are_one_helper_each(name, kernel):
    """The elements on one robot joint name their component (`Element.component`), and a
    controller's reference, error and damper share theirs, so each joint's statements are one
    block; twelve joints make one helper, which alone calls the kernel (the rhs calls it
    twelve times through the helper). That the compiled code equals the Python right-hand side
    is `tests/kernels/test_compiled_rhs.py`'s."""
    import porthamiltonian as ph

    model = build_model(name)
    system = ph.compile(model.graph)
    src = _jit.generate_jit(system._plan)[0]
    local = re.search(rf"from porthamiltonian\.kernels\.\w+ import {kernel} as (_k\d+)_", src)[1]
    helpers, body = src.split("def rhs")
    assert f"{local}(" in helpers and f"{local}(" not in body
    helper = re.search(rf"def (_h\d+)_\([^)]*\):\n(?:    .*\n)*?    [^\n]*\b{local}\(", helpers)[1]
    assert body.count(f"{helper}(") == 12
