"""Where the external test and benchmark data lives: the one resolver every test and bench uses.

The data sets are not in the repository (licences and size); they are looked up, in order:

1. ``$TAO_TEST_DATA`` — a directory laid out like ``../shared/data`` (when set, it must be valid:
   no silent fallback);
2. ``../shared/data`` next to the checkout, where it exists;
3. ``.testdata/`` in the checkout, filled by ``make test-data`` (= ``python3 estimator/data/paths.py
   fetch``), which downloads each set at a pinned commit and checks its sha256.

Layout of a data directory (each set is verified by a digest of its files, see :func:`tree_digest`)::

    JSON-Schema-Test-Suite/   LICENSE, tests/draft2020-12/**, tests/draft7/**, remotes/**
    jsonlogic/                tests.json, LICENSE
    traces/azure2023/         AzureLLMInferenceTrace_conv.csv, AzureLLMInferenceDataset2023.md, LICENSE

Standard library only, and runnable as a script (``python3 estimator/data/paths.py check``) before
``.venv`` exists, so ``make test`` can stop at once with one clear message when the data is missing.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV = "TAO_TEST_DATA"
SHARED = ROOT.parent / "shared" / "data"
FETCHED = ROOT / ".testdata"

AZURE_CONV = "traces/azure2023/AzureLLMInferenceTrace_conv.csv"
JSONLOGIC_TESTS = "jsonlogic/tests.json"
JSON_SCHEMA_SUITE = "JSON-Schema-Test-Suite"

_SUITE_COMMIT = "44401e0c046704b476ec9d2e2fccdaee618f259d"  # 2026-08-22, "test(ipv6): ... (#1106)"
_JSONLOGIC_SITE = "fc1867dc192a63e96f273110115f83ba67a4e5fe"  # gh-pages (jsonlogic.com), 2023-10-18
_JSONLOGIC_MASTER = "65ea0bdc0abb0ad6e87fe627546ffd11397387ba"  # master, LICENSE (MIT)
_AZURE_COMMIT = "b469a113cedca53ddc3bdea71a143dc4b7d8700c"  # Azure/AzurePublicDataset
_RAW = "https://raw.githubusercontent.com"


@dataclass(frozen=True)
class Dataset:
    """One data set: its folder, pinned sources and the digest of its files (SOURCE.txt excluded)."""

    folder: str
    digest: str  # sha256 of tree_digest(folder)
    files: dict[str, tuple[str, str]] = field(default_factory=dict)  # relative path -> (pinned URL, sha256)
    tarball: str | None = None  # pinned archive; ``members`` (top folder stripped) are extracted
    members: tuple[str, ...] = ()
    source: str = ""


DATASETS: tuple[Dataset, ...] = (
    Dataset(
        JSON_SCHEMA_SUITE,
        "c085d9f4191dd0c2712f1d1c2cc54cd94bde0c21c8d559bdfd5349ba9edc25b5",
        tarball=f"https://codeload.github.com/json-schema-org/JSON-Schema-Test-Suite/tar.gz/{_SUITE_COMMIT}",
        members=("LICENSE", "tests/draft2020-12", "tests/draft7", "remotes"),
        source=f"github.com/json-schema-org/JSON-Schema-Test-Suite commit {_SUITE_COMMIT}",
    ),
    Dataset(
        "jsonlogic",
        "7cb8b4ad498603251d471a1ffd47084bf5b766f55559be85b19ef8190e99478b",
        files={
            "tests.json": (
                f"{_RAW}/jwadhams/json-logic/{_JSONLOGIC_SITE}/tests.json",
                "3f2ef4252eb0285e5e0105b2c2fc14155d6e691519ecf46a4591c6f480587c31",
            ),
            "LICENSE": (
                f"{_RAW}/jwadhams/json-logic/{_JSONLOGIC_MASTER}/LICENSE",
                "453a163c949bf67cbed175f93d6a57c11df65086dd8e32ea490179cef4033cdf",
            ),
        },
        source=f"github.com/jwadhams/json-logic tests.json at {_JSONLOGIC_SITE}, LICENSE at {_JSONLOGIC_MASTER}",
    ),
    Dataset(
        "traces/azure2023",
        "77042dd45cc7c8ff8c772329e621b6aebe140bca9efeaf3d5b2673e24c7d3234",
        files={
            "AzureLLMInferenceTrace_conv.csv": (
                f"{_RAW}/Azure/AzurePublicDataset/{_AZURE_COMMIT}/data/AzureLLMInferenceTrace_conv.csv",
                "2f1e5b666d4e3055fdbba98598ce2ec307767b9064e03e2fa46676dbcc7d0bf8",
            ),
            "AzureLLMInferenceDataset2023.md": (
                f"{_RAW}/Azure/AzurePublicDataset/{_AZURE_COMMIT}/AzureLLMInferenceDataset2023.md",
                "9996a0d9e4d94ee52bc3564a33f51e172a34f4a58960a05f066a2b8061f9a1e0",
            ),
            "LICENSE": (
                f"{_RAW}/Azure/AzurePublicDataset/{_AZURE_COMMIT}/LICENSE",
                "9bbc1ea9fe5c96df01b311a2ac864d5b18fc87b9948bfd14770e4b44db755ee9",
            ),
        },
        source=f"github.com/Azure/AzurePublicDataset commit {_AZURE_COMMIT} (CC-BY 4.0)",
    ),
)


class TestDataMissing(RuntimeError):
    """No usable data directory; the message says how to get one."""


HOW_TO = (
    f"set {ENV}=DIR (a copy of the shared data), place it at {SHARED}, "
    "or run `make test-data` to fetch the pinned sets into .testdata/"
)


def tree_digest(folder: Path) -> str:
    """sha256 over ``"<sha256 of file>  <relative path>\\n"`` for every file, sorted (SOURCE.txt excluded)."""
    lines = []
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name != "SOURCE.txt":
            lines.append(
                f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(folder).as_posix()}\n"
            )
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def problems(root: Path) -> list[str]:
    """What is wrong with ``root`` as a data directory (empty: every set is present and pinned)."""
    if not root.is_dir():
        return [f"{root} is not a directory"]
    out = []
    for ds in DATASETS:
        d = root / ds.folder
        if not d.is_dir():
            out.append(f"{ds.folder}/ missing")
        elif (got := tree_digest(d)) != ds.digest:
            out.append(
                f"{ds.folder}/ differs from the pinned version (digest {got[:12]}…, want {ds.digest[:12]}…)"
            )
    return out


def candidates() -> list[tuple[str, Path]]:
    """The places looked at, in order (``$TAO_TEST_DATA`` alone when it is set)."""
    env = os.environ.get(ENV)
    if env:
        return [(f"${ENV}", Path(env).expanduser())]
    return [("../shared/data", SHARED), ("make test-data", FETCHED)]


def data_dir() -> Path:
    """The data directory to use; raises :class:`TestDataMissing` with one clear message."""
    tried = []
    for label, root in candidates():
        if not root.exists() and label != f"${ENV}":
            tried.append(f"{label}: {root} does not exist")
            continue
        bad = problems(root)
        if not bad:
            return root
        tried.append(f"{label}: {root}: {'; '.join(bad)}")
    raise TestDataMissing(f"test data missing ({' | '.join(tried)}). To get it: {HOW_TO}.")


def data_path(relative: str) -> Path:
    """``relative`` (e.g. :data:`AZURE_CONV`) inside the resolved data directory, or, when there is
    none, inside the first candidate (so a default argument can be built at import time; opening
    it then fails with the path in the message)."""
    try:
        return data_dir() / relative
    except TestDataMissing:
        return candidates()[0][1] / relative


def _download(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as r:  # pinned https URLs only
        return r.read()


def _fetch_one(ds: Dataset, dest: Path) -> None:
    if ds.tarball:
        with tarfile.open(fileobj=io.BytesIO(_download(ds.tarball)), mode="r:gz") as tar:
            for m in tar.getmembers():
                rel = m.name.split("/", 1)[1] if "/" in m.name else ""
                if m.isfile() and any(rel == k or rel.startswith(k + "/") for k in ds.members):
                    src = tar.extractfile(m)
                    assert src is not None
                    (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                    (dest / rel).write_bytes(src.read())
    for rel, (url, sha) in ds.files.items():
        body = _download(url)
        if (got := hashlib.sha256(body).hexdigest()) != sha:
            raise ValueError(f"{url}: sha256 {got}, pinned {sha}")
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_bytes(body)
    (dest / "SOURCE.txt").write_text(f"source: {ds.source}\nfetched by: make test-data\n")


def fetch(into: Path = FETCHED) -> list[str]:
    """Download every set that is missing or wrong under ``into``; returns the errors (empty: done)."""
    errors = []
    for ds in DATASETS:
        final = into / ds.folder
        if final.is_dir() and tree_digest(final) == ds.digest:
            continue
        with tempfile.TemporaryDirectory(dir=into) as tmp:
            part = Path(tmp) / "part"
            part.mkdir()
            try:
                _fetch_one(ds, part)
            except OSError as exc:  # URLError, timeouts, HTTP errors
                errors.append(f"{ds.folder}: cannot download ({exc})")
                continue
            except (ValueError, tarfile.TarError) as exc:  # checksum mismatch, broken archive
                errors.append(f"{ds.folder}: {exc}")
                continue
            if (got := tree_digest(part)) != ds.digest:
                errors.append(f"{ds.folder}: checksum mismatch (digest {got}, pinned {ds.digest})")
                continue
            shutil.rmtree(final, ignore_errors=True)
            final.parent.mkdir(parents=True, exist_ok=True)
            part.rename(final)
    return errors


def main(argv: list[str] | None = None) -> int:
    cmd = (argv if argv is not None else sys.argv[1:]) or ["check"]
    if cmd[0] == "check":  # make test / test-fast: stop at once, one message
        try:
            print(f"test data: {data_dir()}")
        except TestDataMissing as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return 0
    if cmd[0] == "fetch":  # make test-data
        if os.environ.get(ENV) or (SHARED.is_dir() and not problems(SHARED)):
            print(f"test data present: {data_dir()} (nothing to fetch)")
            return 0
        FETCHED.mkdir(exist_ok=True)
        errors = fetch()
        if errors:
            print(
                "error: make test-data could not fetch the pinned test data:\n  "
                + "\n  ".join(errors)
                + f"\nWithout network access to github.com: {HOW_TO.split(', or run')[0]}.",
                file=sys.stderr,
            )
            return 2
        print(f"test data fetched into {FETCHED}")
        return 0
    if cmd[0] == "digest":  # maintainers: digests of a data directory, to pin a new version
        root = Path(cmd[1]) if len(cmd) > 1 else data_dir()
        for ds in DATASETS:
            print(f"{ds.folder}: {tree_digest(root / ds.folder)}")
        return 0
    print("usage: paths.py [check | fetch | digest [DIR]]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
