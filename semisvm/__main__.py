"""``python -m semisvm`` and the ``semisvm`` command: see :mod:`semisvm.cli`.

The signal handlers are installed before anything heavy is imported, so that
an interrupt (SIGINT, Ctrl-C) or a termination request (SIGTERM, as sent by
``timeout``, batch schedulers and container runtimes) at any moment -- even
during start-up -- ends the program with one line on stderr, no traceback,
temporary files removed, and exit status 130 (SIGINT) or 143 (SIGTERM).
"""
import signal
import sys


class Terminated(SystemExit):
    """Raised in the main thread by the SIGTERM handler.

    A ``SystemExit`` (status 143): like ``KeyboardInterrupt`` it passes every
    ``except Exception`` and runs the clean-up of the temporary files on its
    way out.
    """


_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received = []


def _handler(signum, frame):
    _received.append(signum)
    # a second signal must not interrupt the clean-up of the first
    for sig in _SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    if signum == signal.SIGTERM:
        raise Terminated(143)
    raise KeyboardInterrupt


def _say(word, argv):
    try:
        args = sys.argv[1:] if argv is None else list(argv)
        command = next((a for a in args if not a.startswith("-")), "")
        print(f"semisvm{' ' + command if command else ''}: {word}", file=sys.stderr,
              flush=True)
    except (OSError, ValueError):
        pass


def main(argv=None):
    """Run the command line with SIGINT/SIGTERM turned into a clean exit."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:
        # answered without loading NumPy, SciPy and scikit-learn (about 1 s
        # of a 1.2 s start-up); the same line as the parser's --version
        from semisvm import __version__
        print(f"semisvm {__version__}")
        return 0
    old = {sig: signal.signal(sig, _handler) for sig in _SIGNALS}
    block = getattr(signal, "pthread_sigmask", None)
    try:
        # held back during the imports (C extensions turn an exception raised
        # inside their import into ImportError); delivered right after them
        if block is not None:
            block(signal.SIG_BLOCK, _SIGNALS)
        try:
            try:  # a source tree without its compiled extensions: one line
                import semisvm._core  # noqa: F401
            except ImportError as exc:
                _say(f"error: {exc}", argv)
                return 2
            from semisvm.cli import main as cli_main
        finally:
            if block is not None:
                block(signal.SIG_UNBLOCK, _SIGNALS)
        return cli_main(argv)
    except BaseException as exc:
        if not _received or (isinstance(exc, SystemExit)
                             and not isinstance(exc, Terminated)):
            raise
        if _received[0] == signal.SIGTERM:
            _say("terminated", argv)
            return 143
        _say("interrupted", argv)
        return 130
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)


if __name__ == "__main__":
    sys.exit(main())
