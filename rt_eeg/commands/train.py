"""``rt-eeg train``: train the channel-based LSTM decoder on a corpus."""

from __future__ import annotations

import argparse
import shlex
import sys

HELP = "train the channel-based LSTM decoder on a corpus"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--corpus", required=True, help="corpus root (TUSZ/CHB-MIT tree) or list file"
    )
    parser.add_argument("--out", required=True, help="model folder to write, e.g. models/NAME")
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of every random source (default 0)"
    )
    parser.add_argument(
        "--epochs", type=int, default=20, help="maximum training epochs (default 20)"
    )
    parser.add_argument(
        "--device",
        choices=("auto", "cpu", "gpu"),
        default="auto",
        help="training device (default auto)",
    )
    parser.add_argument(
        "--max-files", type=int, default=None, help="at most N recordings per split"
    )
    parser.add_argument(
        "--arch",
        default="frame_lstm",
        help="epoch_lstm, frame_lstm, frame_lstm_3s (the last 3 s of the window only) or "
        "frame_lstm_veto (with --init-from); or variants "
        "ARCH[:NORM[:ONSET_WEIGHT[:HARD_NEGATIVES]]][@SEED],... (or 'compare' = both "
        "architectures) trained with the same seed (or their own @SEED), the best on dev kept",
    )
    parser.add_argument(
        "--normalisation",
        # rt_eeg.decoder.NORMALISATIONS, spelt out: importing it here costs every command
        # 0.15 s of start-up (a test keeps the two equal)
        choices=("maxabs", "zscore", "context", "context_maxabs", "context_montage", "context_history"),
        default="maxabs",
        help="decoder inputs: window-normalised (maxabs, zscore) or relative to the patient's "
        "background (context, context_maxabs; context_montage adds the departure's mean over "
        "all channels; context_history the channel's last 70 one-second epoch means beside "
        "its last 7 s of frames); default maxabs",
    )
    parser.add_argument(
        "--dev-corpus",
        default=None,
        help="separate corpus (root or list) used whole as the dev/selection set, e.g. "
        "held-out simulator families: early stopping and variant choice measure transfer",
    )
    parser.add_argument(
        "--onset-weight",
        type=float,
        default=1.0,
        help="draw seizure samples from the first --onset-epochs s of a seizure this many "
        "times more often (early detection; default 1)",
    )
    parser.add_argument("--onset-epochs", type=int, default=10)
    parser.add_argument(
        "--seizure-balance",
        type=float,
        default=0.0,
        metavar="A",
        help="draw each seizure sample with weight L**-A, L the length of its seizure on that "
        "channel (0-1): short seizures count as much as long ones do when scored "
        "(1: every seizure drawn equally often; default 0: in proportion to length)",
    )
    parser.add_argument(
        "--hard-negatives",
        type=float,
        default=0.0,
        help="share (0-1) of each epoch's background drawn from the background the model "
        "currently scores highest (hard-negative mining; default 0)",
    )
    parser.add_argument(
        "--hard-pool",
        type=int,
        default=4,
        help="candidates scored per mined background sample (default 4)",
    )
    parser.add_argument(
        "--seizure-mix",
        type=float,
        default=0.0,
        metavar="P",
        help="augment training: each seizure sample is, with probability P, replaced by a convex "
        "mix of itself and another seizure sample of its batch (default 0: off)",
    )
    parser.add_argument(
        "--contrast-jitter",
        type=float,
        default=0.0,
        metavar="J",
        help="augment training: scale each sample's background-relative (context) inputs by "
        "exp(U(-J, J)), so the model reads a departure's shape rather than its size "
        "(default 0: off)",
    )
    parser.add_argument(
        "--stale-context",
        type=float,
        default=0.0,
        metavar="P",
        help="augment training: give each background sample, with probability P, its "
        "channel's background centre from 1-20 min earlier, as a patient who changed state "
        "is read live (default 0: off)",
    )
    parser.add_argument(
        "--freq-warp",
        type=float,
        default=0.0,
        metavar="W",
        help="augment training: move each sample's spectrum along frequency by a factor "
        "exp(U(-W, W)) (the cepstra, their deltas and accelerations), so where a rhythm sits "
        "does not make a seizure (default 0: off; 0.2 = factors 0.82-1.22)",
    )
    parser.add_argument(
        "--freq-warp-on",
        choices=("all", "background", "seizure"),
        default="all",
        help="which training samples --freq-warp moves, by label (default all; background: "
        "background rhythms at other frequencies stay background, seizures as recorded)",
    )
    parser.add_argument(
        "--balance-sources",
        default=None,
        metavar="GROUPS",
        help="split each epoch's seizure and background samples equally between training "
        "sources: comma-separated groups of top-level corpus folders joined by '+', e.g. "
        "'A+B,XT1,XT2', or 'folders' (each folder its own); default: off (in proportion)",
    )
    parser.add_argument(
        "--balance-halves",
        choices=("both", "seizure"),
        default="both",
        help="with --balance-sources: balance both halves of each epoch (default) or the "
        "seizure half only, the background drawn in proportion",
    )
    parser.add_argument(
        "--balance-mining",
        action="store_true",
        help="with --balance-sources and hard negatives: draw the mining candidates equally "
        "from each source's background (default: from all of it, in proportion)",
    )
    parser.add_argument(
        "--source-dro",
        type=float,
        default=0.0,
        metavar="ETA",
        help="with --balance-sources: group DRO over the sources; after each epoch every "
        "source's share of the next epoch's draws is multiplied by exp(ETA x its loss on a fixed "
        "probe of its rows), none below half an equal share (default 0: equal shares)",
    )
    parser.add_argument(
        "--source-adversary",
        type=float,
        default=0.0,
        metavar="LAMBDA",
        help="with --balance-sources: domain-adversarial training; a head (not saved) learns to "
        "name each window's source from the LSTM's output, through a gradient reversal rising "
        "to LAMBDA on DANN's schedule (default 0: off)",
    )
    parser.add_argument(
        "--keep-variants",
        action="store_true",
        help="with several --arch variants: keep each variant's model under OUT/variants",
    )
    parser.add_argument(
        "--init-from",
        default="",
        metavar="MODEL",
        help="with --arch frame_lstm_veto: a trained frame_lstm model folder (context inputs) "
        "used as the 7 s decoder, frozen; only the veto that reads the 70 s history trains",
    )
    parser.add_argument(
        "--veto-called",
        type=float,
        default=0.0,
        metavar="P",
        help="with --arch frame_lstm_veto: train the veto only on the rows the frozen 7 s "
        "decoder calls at P (its seizure calls against its false calls); needs hard "
        "negatives 0 (default 0: off, the whole store)",
    )
    parser.add_argument("--units", type=int, default=32, help="LSTM units (default 32)")
    parser.add_argument("--dropout", type=float, default=0.0, help="dropout rate (default 0)")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    parser.add_argument("--patience", type=int, default=4, help="early-stopping patience (epochs)")
    parser.add_argument(
        "--keep",
        choices=("best", "last"),
        default="best",
        help="weights kept: best (lowest dev loss, early stopping; default) or last (all --epochs)",
    )
    parser.add_argument(
        "--average-epochs",
        type=int,
        default=0,
        metavar="N",
        help="with --keep last: keep the mean of the weights after every step of the last N "
        "epochs (tail averaging) instead of the last step's (default 0: off)",
    )
    parser.add_argument(
        "--distill-from",
        default="",
        metavar="DIR,...",
        help="knowledge distillation: teacher model folders (same features and inputs); each "
        "training target becomes (1 - W) y + W x the teachers' mean P(seizure) on the same window",
    )
    parser.add_argument(
        "--distill-weight",
        type=float,
        default=None,
        metavar="W",
        help="the teachers' share of each target (default 0.5 with --distill-from)",
    )
    parser.add_argument(
        "--distill-rows",
        choices=("all", "seizure", "background"),  # rt_eeg.distill.DISTILL_ROWS, spelt out
        default="all",
        help="which rows take the teachers' share: all, seizure (background targets stay 0) or "
        "background (seizure targets stay 1, the student's scale uncapped) (default all)",
    )
    parser.add_argument(
        "--label-smoothing",
        type=float,
        default=0.0,
        metavar="EPS",
        help="train against targets EPS/2 and 1-EPS/2 instead of 0/1 (the loss stops "
        "rewarding saturated outputs); the output logit is then rescaled so a training "
        "seizure's target reads --smoothed-top (default 0: off)",
    )
    parser.add_argument(
        "--smoothed-top",
        type=float,
        default=0.9998,
        metavar="P",
        help="with --label-smoothing: the level a training seizure's target reads after the "
        "fold (default 0.9998, the operating-point grid's top; 0.995 its middle)",
    )
    parser.add_argument(
        "--background-focal",
        type=float,
        default=0.0,
        metavar="GAMMA",
        help="weigh each background sample's loss by P(seizure)**GAMMA, normalised to mean 1 "
        "over the batch's background, so training dwells on the background scored highest "
        "(default 0: off; not with --label-smoothing)",
    )
    parser.add_argument(
        "--seizure-hinge",
        type=lambda text: _hinge_spec(text, 0.1),
        default=(0.0, 0.1),
        metavar="LEVEL[:WEIGHT]",
        help="with --background-hinge: add WEIGHT x the mean squared shortfall of seizure "
        "logits under logit(LEVEL) (e.g. 0.995:0.1), pulling the seizures scored lowest up past "
        "the background's level (default off; WEIGHT defaults to 0.1)",
    )
    parser.add_argument(
        "--background-hinge",
        type=_hinge_spec,
        default=(0.0, 1.0),
        metavar="LEVEL[:WEIGHT]",
        help="add WEIGHT x the mean squared excess of background logits over logit(LEVEL) to "
        "the loss (e.g. 0.99:1), pulling hardest on the background scored highest and leaving "
        "it alone below LEVEL (default off; WEIGHT defaults to 1; not with --label-smoothing "
        "or --background-focal)",
    )
    parser.add_argument(
        "--samples-per-epoch", type=int, default=65536, help="balanced samples per training epoch"
    )
    parser.add_argument("--max-dev-samples", type=int, default=65536)
    parser.add_argument("--threads", type=int, default=0, help="TensorFlow threads (0: default)")
    parser.add_argument(
        "--workers", type=int, default=None, help="feature processes (default: all cores)"
    )
    parser.add_argument(
        "--store",
        default=None,
        help="feature store folder (default: cache folder named by its key); a complete store "
        "of other recordings that holds every listed one is trained on as is, not rebuilt",
    )
    parser.add_argument(
        "--features",
        default=None,
        metavar="TOML",
        help="feature settings (a features.toml, e.g. a longer analysis window) instead of the "
        "defaults; saved beside the model. Evaluate and the real checks use a model's own "
        "settings; the live pipeline runs the defaults and refuses such a model",
    )
    parser.add_argument(
        "--reuse-store",
        action="append",
        default=[],
        metavar="DIR",
        help="existing feature store whose recordings (same files, same feature settings) are "
        "copied instead of recomputed when the store is built; repeatable",
    )


def run(args: argparse.Namespace) -> int:
    from rt_eeg.features import FeatureConfig, check_runnable
    from rt_eeg.train_config import TrainConfig
    from rt_eeg.train_corpus import parse_variants, train_corpus
    from rt_eeg.train_data import parse_sources

    # read first: a bad settings file is refused before the corpus is looked at
    feature_config = FeatureConfig.load(args.features) if args.features else None
    if feature_config is not None:
        check_runnable(feature_config, args.features)
    variants = parse_variants(
        args.arch, args.normalisation, args.onset_weight, args.hard_negatives
    )
    compare = variants if len(variants) > 1 else ()
    cfg = TrainConfig(
        arch=variants[0][0],
        units=args.units,
        dropout=args.dropout,
        normalisation=variants[0][1],
        epochs=args.epochs,
        batch_size=args.batch_size,
        learning_rate=args.lr,
        patience=args.patience,
        keep=args.keep,
        average_epochs=args.average_epochs,
        distill_from=tuple(d for d in args.distill_from.split(",") if d),
        distill_weight=(args.distill_weight if args.distill_weight is not None
                        else 0.5 if args.distill_from else 0.0),  # fmt: skip
        distill_rows=args.distill_rows,
        label_smoothing=args.label_smoothing,
        smoothed_top=args.smoothed_top,
        background_focal=args.background_focal,
        background_hinge=args.background_hinge[0],
        hinge_weight=args.background_hinge[1],
        seizure_hinge=args.seizure_hinge[0],
        seizure_hinge_weight=args.seizure_hinge[1],
        samples_per_epoch=args.samples_per_epoch,
        max_dev_samples=args.max_dev_samples,
        seed=args.seed if variants[0][4] is None or compare else variants[0][4],
        threads=args.threads,
        onset_weight=variants[0][2],
        onset_epochs=args.onset_epochs,
        seizure_balance=args.seizure_balance,
        hard_negatives=variants[0][3],
        hard_pool=args.hard_pool,
        seizure_mix=args.seizure_mix,
        contrast_jitter=args.contrast_jitter,
        stale_context=args.stale_context,
        freq_warp=args.freq_warp,
        freq_warp_on=args.freq_warp_on,
        balance_sources=parse_sources(args.balance_sources) if args.balance_sources else (),
        balance_halves=args.balance_halves,
        balance_mining=args.balance_mining,
        source_dro=args.source_dro,
        source_adversary=args.source_adversary,
        init_from=args.init_from,
        veto_called=args.veto_called,
    )
    manifest = train_corpus(
        args.corpus,
        args.out,
        cfg,
        device=args.device,
        max_files=args.max_files,
        store_dir=args.store,
        workers=args.workers,
        compare=compare,
        dev_corpus=args.dev_corpus,
        keep_variants=args.keep_variants,
        reuse_stores=tuple(args.reuse_store),
        feature_config=feature_config,
        command_line=shlex.join(["rt-eeg", *getattr(args, "argv", sys.argv[1:])]),
        log=lambda line: print(line, flush=True),
    )
    s = manifest["dev_scores"]
    print(
        f"wrote {args.out}: {manifest['architecture']['name']}, best epoch {manifest['best_epoch']}, "
        f"dev balanced bce {s['balanced_bce']:.4f}, auc {s['auc']:.4f}, "
        f"sens {s['sensitivity']:.3f}, spec {s['specificity']:.3f}"
    )
    return 0


def _hinge_spec(text: str, weight: float = 1.0) -> tuple[float, float]:
    """``'LEVEL[:WEIGHT]'`` -> ``(level, weight)`` (``weight`` when omitted); TrainConfig
    checks the ranges."""
    parts = text.split(":")
    try:
        if len(parts) > 2:
            raise ValueError
        return float(parts[0]), float(parts[1]) if len(parts) == 2 else weight
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected LEVEL[:WEIGHT] with numbers, e.g. 0.99:1; got {text!r}"
        ) from None
