# The simulator's family roles (rt_eeg/sim/families.py), defined once: sourced by
# tools/make_default_model.sh and tools/xgen_round.sh.
SELECT_SEIZ=hemispheric,subtle_focal,rhythmic_beta
REPORT_SEIZ=polyspike,low_voltage_fast,muscle_obscured,rhythmic_alpha
TRAIN_SEIZ=rhythmic_delta,rhythmic_theta,spike_wave,focal_spread,generalised
SELECT_OTHER=slowing,fourteen_six,movement,electrode_pop
REPORT_OTHER=breach,wicket,sreda,patting,sweat,chewing
# Clinical artifacts added to the simulator on 2026-11-23 (rt_eeg/sim/clinical_artifacts.py):
# TRAIN only, in corpus A3. Every other corpus excludes them, so it is bit-identical to the
# corpus simulated before they existed (the roles of the other families are unchanged).
NEW_TRAIN=percussion,pulse,glossokinetic
# Fresh families added on 2026-11-24 (rt_eeg/sim/fresh_families.py), REPORT2: held out of
# everything but corpus R, which reports them. Every other corpus excludes them, so it is
# bit-identical to the corpus simulated before they existed.
REPORT2=hypnagogic,mu,lambda,phantom_sw,photic
# Arousals from sleep (rt_eeg/sim/arousals.py, 2026-11-26): TRAIN, in corpus A4 only (protocol
# amendment 14); every other corpus excludes them and is bit-identical to before they existed.
NEW_TRAIN2=arousal
# Medication beta (rt_eeg/sim/drug_beta.py, 2026-11-28): TRAIN, in corpus AM only (protocol
# amendment 62); every other corpus excludes it and is bit-identical to before it existed.
NEW_TRAIN3=drug_beta
# A wide alpha field (rt_eeg/sim/alpha_field.py, 2026-11-29): TRAIN, in corpus AN only (protocol
# amendment 63); every other corpus excludes it and keeps its bytes
NEW_TRAIN4=alpha_field
# Steady rhythms (rt_eeg/sim/steady_rhythms.py, 2026-11-30): TRAIN, in corpus AR only (pilot 96).
# Opt-in (its chance is 0 unless a corpus requires it): no other corpus needs to exclude it.
NEW_TRAIN5=steady_rhythm
# O and O2 (own distribution: TRAIN families on unseen patients) exclude everything else
OWN_EXCLUDE="$SELECT_SEIZ,$REPORT_SEIZ,$SELECT_OTHER,$REPORT_OTHER,$NEW_TRAIN,$REPORT2,$NEW_TRAIN2,$NEW_TRAIN3,$NEW_TRAIN4"
# K66 (amendment 127's adopted recipe): K53's options plus these, defined once for
# tools/xgen_recipes.sh's k66() and tools/make_default_model.sh's RECIPE=k66
K66_OPTS=(--hard-pool 16)
