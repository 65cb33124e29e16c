"""Named signal families of the simulator, for holding whole families out of training.

Every pattern the simulator can put in a corpus recording belongs to one family, and every
family to one of four groups:

- ``seizure``: what is annotated as a seizure (each seizure is one family);
- ``background``: the behavioural states and background abnormalities (slowing, breach);
- ``benign``: normal variants that look epileptiform or rhythmic but are not seizures;
- ``artifact``: non-cerebral signals.

``rt-eeg simulate --families LIST --exclude-families LIST`` (both comma lists of family or
group names) picks the families a corpus draws from; :func:`resolve_families` parses them.
Each recording's ``<stem>.families.json`` sidecar says which families it holds.
"""

from __future__ import annotations

from rt_eeg.errors import RtEegError

#: Family names per group (snake_case, unique across groups).
FAMILIES: dict[str, tuple[str, ...]] = {
    "seizure": (
        "rhythmic_delta",  # evolving rhythmic delta (1.5-4 Hz)
        "rhythmic_theta",  # evolving rhythmic theta (4-8 Hz)
        "rhythmic_alpha",  # evolving rhythmic alpha-range discharge (8-13 Hz)
        "rhythmic_beta",  # evolving rhythmic beta (13-26 Hz), low voltage
        "spike_wave",  # 2.5-4 Hz spike-and-wave
        "polyspike",  # polyspike-and-wave, 1.5-3.5 Hz
        "low_voltage_fast",  # electrodecremental onset with 15-30 Hz, then rhythmic theta
        "focal_spread",  # focal onset spreading over the hemisphere and across
        "hemispheric",  # one hemisphere at once
        "generalised",  # generalised rhythmic, tonic, tonic-clonic
        "subtle_focal",  # low amplitude, one to three electrodes
        "muscle_obscured",  # a rhythmic seizure under heavy muscle artifact
    ),
    "background": (
        "awake_alpha",  # awake, reactive posterior alpha (eyes open / closed)
        "drowsy",  # alpha dropout, slow roving eye movements, theta
        "sleep",  # delta, spindles, K-complexes
        "slowing",  # focal or diffuse polymorphic delta
        "breach",  # skull defect: focal higher amplitude and faster activity
        "arousal",  # abrupt awakenings and brief arousals from sleep, with a muscle burst
        "drug_beta",  # sedative medication: diffuse / frontocentral 15-27 Hz, 8-30 uV, hours
        "alpha_field",  # alpha extending over central / temporal chains, more so when drowsy
    ),
    "benign": (
        "wicket",  # arciform 6-11 Hz temporal trains
        "rmtd",  # rhythmic mid-temporal theta of drowsiness, notched 5-7 Hz runs
        "fourteen_six",  # 14 and 6 Hz positive spike bursts, posterior temporal
        "sreda",  # subclinical rhythmic EEG discharge of adults: evolving sharp theta, no seizure
        "posts_vertex",  # vertex waves and positive occipital sharp transients of sleep
        "hypnagogic",  # hypnagogic hypersynchrony: 3-5 Hz high-voltage bursts, drowsy
        "mu",  # arciform 7-11 Hz over C3 / C4, awake
        "lambda",  # positive occipital transients of visual scanning, awake
        "phantom_sw",  # 6 Hz phantom spike-and-wave: small spike, 5-7 Hz, 1-2 s
        "steady_rhythm",  # rhythmic theta / delta runs that never evolve (only when required)
    ),
    "artifact": (
        "blink",
        "lateral_eye",  # saccades and slow roving eye movements
        "emg",  # scalp muscle bursts
        "chewing",
        "electrode_pop",  # pops, and electrodes that go flat or rail
        "drift",  # slow baseline drift of one electrode
        "sweat",  # very slow, large sways over a region
        "ecg",  # cardiac field on the ear and temporal electrodes
        "line_noise",  # 50 / 60 Hz mains
        "movement",  # head / body movement: large slow swings with muscle
        "patting",  # rhythmic 2-8 Hz bursts on a few electrodes (patting, tremor)
        "percussion",  # chest physiotherapy / bed vibration: stable 3-8 Hz on many electrodes
        "pulse",  # an electrode over a scalp artery: sawtooth at the heart rate
        "glossokinetic",  # tongue movement: irregular 1-3 Hz, bifrontal, awake
        "photic",  # photic stimulation: occipital driving at stepped flash frequencies
    ),
}

#: Group of every family.
GROUP_OF: dict[str, str] = {f: g for g, fams in FAMILIES.items() for f in fams}
#: Every family name.
ALL_FAMILIES: frozenset[str] = frozenset(GROUP_OF)

#: TUSZ subtype -> seizure families that can carry it, best first (``--from-annotations``).
SUBTYPE_FAMILIES: dict[str, tuple[str, ...]] = {
    "absz": ("spike_wave", "polyspike", "generalised"),
    "gnsz": (
        "generalised",
        "spike_wave",
        "polyspike",
        "rhythmic_delta",
        "rhythmic_theta",
        "muscle_obscured",
        "rhythmic_alpha",
    ),  # fmt: skip
    "tcsz": ("generalised", "muscle_obscured", "low_voltage_fast"),
    "tnsz": ("low_voltage_fast", "rhythmic_beta", "generalised"),
    "mysz": ("polyspike", "spike_wave", "generalised"),
    "cnsz": ("generalised", "rhythmic_delta", "polyspike"),
    "clsz": ("generalised", "rhythmic_delta", "polyspike"),
    "atsz": ("generalised", "low_voltage_fast", "polyspike"),
    "fnsz": (
        "rhythmic_theta",
        "rhythmic_delta",
        "rhythmic_alpha",
        "rhythmic_beta",
        "low_voltage_fast",
        "focal_spread",
        "hemispheric",
        "subtle_focal",
        "muscle_obscured",
    ),  # fmt: skip
}
for _sub in ("cpsz", "spsz", "nesz"):
    SUBTYPE_FAMILIES[_sub] = SUBTYPE_FAMILIES["fnsz"]


def family_list(names) -> str:
    """Families as a comma list in :data:`FAMILIES` order (for messages)."""
    order = [f for fams in FAMILIES.values() for f in fams]
    return ",".join(f for f in order if f in set(names))


def _parse(text: str, option: str) -> set[str]:
    out: set[str] = set()
    for raw in text.split(","):
        name = raw.strip().lower().replace("-", "_")
        if not name:
            continue
        if name in FAMILIES:
            out.update(FAMILIES[name])
        elif name == "all":
            out.update(ALL_FAMILIES)
        elif name in GROUP_OF:
            out.add(name)
        else:
            raise RtEegError(
                f"{option}: unknown family {raw.strip()!r} (groups: {', '.join(FAMILIES)}; "
                f"families: {family_list(ALL_FAMILIES).replace(',', ', ')})"
            )
    return out


def resolve_families(include: str | None, exclude: str | None) -> frozenset[str]:
    """The allowed families from ``--families`` and ``--exclude-families``.

    Parameters
    ----------
    include : str or None
        Comma list of family or group names (``seizure``, ``background``, ``benign``,
        ``artifact``, ``all``); None or empty: every family.
    exclude : str or None
        Comma list of family or group names removed from ``include``.

    Returns
    -------
    frozenset of str
        Family names.

    Raises
    ------
    RtEegError
        On an unknown name (the message names it and lists the valid ones).
    """
    allowed = _parse(include, "--families") if include and include.strip() else set(ALL_FAMILIES)
    if exclude:
        allowed -= _parse(exclude, "--exclude-families")
    return frozenset(allowed)


def parse_families(text: str, option: str) -> frozenset[str]:
    """Family and group names of a comma list given to ``option`` (RtEegError naming it on
    an unknown name)."""
    return frozenset(_parse(text, option))


def read_families(edf_path) -> dict:
    """The ``<stem>.families.json`` sidecar of a simulated recording.

    Parameters
    ----------
    edf_path : path-like
        The EDF (or the sidecar itself).

    Returns
    -------
    dict
        ``seizure`` (family per seizure, time order), ``present`` (families in the
        recording), ``sfreq``, ``montage``, ``gain``.

    Raises
    ------
    RtEegError
        When the sidecar is missing or malformed (one line naming it).
    """
    import json
    from pathlib import Path

    path = Path(edf_path)
    if not path.name.endswith(".families.json"):
        path = path.with_suffix(".families.json")
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise RtEegError(
            "no families sidecar (not a family-mode simulated recording?)", path
        ) from None
    except (OSError, ValueError) as err:
        raise RtEegError(f"unreadable families sidecar ({err})", path) from None
    keys = {"seizure", "present", "sfreq", "montage", "gain"}
    if not isinstance(doc, dict) or not keys <= set(doc):
        raise RtEegError(f"families sidecar lacks {', '.join(sorted(keys - set(doc or {})))}", path)
    unknown = [f for f in [*doc["seizure"], *doc["present"]] if f not in GROUP_OF]
    if unknown:
        raise RtEegError(f"families sidecar names unknown family {unknown[0]!r}", path)
    return doc


def seizure_families(allowed) -> tuple[str, ...]:
    """The allowed seizure families, in :data:`FAMILIES` order."""
    return tuple(f for f in FAMILIES["seizure"] if f in allowed)


#: Seizure families per patient syndrome (see :class:`rt_eeg.sim.profile.PatientProfile`),
#: with how strongly patients of that syndrome tend to have them.
SYNDROME_FAMILIES: dict[str, dict[str, float]] = {
    "focal": {"rhythmic_delta": 1.0, "rhythmic_theta": 1.5, "rhythmic_alpha": 0.6,
              "rhythmic_beta": 0.5, "low_voltage_fast": 1.2, "focal_spread": 1.0,
              "hemispheric": 0.6, "subtle_focal": 0.8, "muscle_obscured": 0.6,
              "generalised": 0.3, "spike_wave": 0.1, "polyspike": 0.1},
    "generalized": {"generalised": 1.5, "spike_wave": 0.8, "polyspike": 0.8,
                    "rhythmic_delta": 0.6, "rhythmic_theta": 0.4, "rhythmic_beta": 0.3,
                    "low_voltage_fast": 0.3, "muscle_obscured": 0.5},
    "absence": {"spike_wave": 2.0, "polyspike": 0.5, "generalised": 0.3},
}  # fmt: skip


def patient_family_weights(syndrome: str, rng) -> dict[str, float]:
    """A patient's tendency to each seizure family (sums to 1 over all seizure families):
    patients have one to three usual families, as real patients have stereotyped seizures,
    and a third of their seizures follow the syndrome's general mix (so a patient with a
    hundred seizures still shows several families)."""
    base = SYNDROME_FAMILIES.get(syndrome, SYNDROME_FAMILIES["focal"])
    w = {f: float(rng.gamma(0.5 * base.get(f, 0.05) + 0.02)) for f in FAMILIES["seizure"]}
    total, total_b = sum(w.values()), sum(base.values())
    return {f: 0.65 * v / total + 0.35 * base.get(f, 0.0) / total_b for f, v in w.items()}


def choose_family(
    allowed, u: float, *, weights: dict | None = None, label: str | None = None
) -> str:
    """Pick a seizure family among the ``allowed`` ones from one uniform number ``u``.

    Parameters
    ----------
    allowed : collection of str
    u : float
        In [0, 1): the one random draw (so the choice consumes the same randomness whatever
        is allowed).
    weights : dict, optional
        Preference per family (default: equal).
    label : str, optional
        Annotated TUSZ subtype: families that can carry it are preferred when allowed.

    Raises
    ------
    ValueError
        When no seizure family is allowed.
    """
    fams = seizure_families(allowed)
    if not fams:
        raise ValueError("no seizure family is allowed, but the recording has seizures")
    if label and label in SUBTYPE_FAMILIES:
        fitting = [f for f in SUBTYPE_FAMILIES[label] if f in fams]
        if fitting:
            fams = tuple(fitting)
    w = [max((weights or {}).get(f, 1.0), 0.0) for f in fams]
    if sum(w) <= 0:
        w = [1.0] * len(fams)
    c = 0.0
    total = sum(w)
    for f, x in zip(fams, w, strict=True):
        c += x / total
        if u < c:
            return f
    return fams[-1]
