"""``import ember`` stays light: in a fresh interpreter it must not import ml_dtypes (about
a second on its own; loaded on first use of bfloat16), cupy, scipy, torch or threadpoolctl.
Times are measured in bench/bench_import.py, never asserted here."""
import json
import subprocess
import sys

HEAVY = ['ml_dtypes', 'cupy', 'scipy', 'torch', 'threadpoolctl']


def _run(code):
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_ember_loads_no_heavy_module():
    loaded = _run(f"import sys, json, ember; print(json.dumps([m for m in {HEAVY!r} "
                  "if m in sys.modules]))")
    assert loaded == []


def test_namespaces_do_not_load_heavy_modules():
    code = ("import sys, json, ember; ember.cuda.is_available(); ember.cuda.device_count(); "
            "ember.backends.cudnn.benchmark = True; ember.accelerator.is_available(); "
            "a = ember.ones(2, 2)\n"
            "with ember.autocast('cpu', dtype=ember.float16): b = a @ a\n"
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    assert _run(code) == []


def test_bfloat16_loads_ml_dtypes_on_first_use():
    code = ("import sys, json, ember; before = 'ml_dtypes' in sys.modules; "
            "d = ember.bfloat16; still = 'ml_dtypes' in sys.modules; "
            "t = ember.ones(2, dtype=ember.bfloat16); "
            "print(json.dumps([before, still, 'ml_dtypes' in sys.modules, str(t.dtype), "
            "t.float().tolist()]))")
    assert _run(code) == [False, False, True, 'torch.bfloat16', [1.0, 1.0]]


def test_finfo_bfloat16_loads_ml_dtypes():
    code = "import json, ember; f = ember.finfo(ember.bfloat16); print(json.dumps([f.eps, f.bits]))"
    assert _run(code) == [0.0078125, 16]


def test_foreign_ml_dtypes_arrays_after_import():
    """ml_dtypes imported by the program after ember: its bfloat16 arrays still convert."""
    code = ("import json, ember, numpy as np, ml_dtypes; "
            "a = np.ones(2, dtype=ml_dtypes.bfloat16); "
            "print(json.dumps([str(ember.from_numpy(a).dtype), str(ember.tensor(a).dtype), "
            "str(ember.tensor([a[0]]).dtype)]))")
    assert _run(code) == ['torch.bfloat16'] * 3


def test_ml_dtypes_imported_before_ember():
    code = ("import json, ml_dtypes, numpy as np, ember; "
            "a = np.ones(2, dtype=ml_dtypes.bfloat16); "
            "print(json.dumps(str(ember.from_numpy(a).dtype)))")
    assert _run(code) == 'torch.bfloat16'
