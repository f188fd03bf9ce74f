"""Linux containment of one probe process: what the OS lets an unprivileged process do.

Used only by the probe worker (`sandbox.py`) on itself and in each probe's fork, never
in gradlint's own process. Each step is best effort and says whether it took effect;
`contain()` returns the list of protections obtained, which travels with the answer:

- fds: every inherited descriptor but the probe's answer pipe is closed; 0/1/2 are
  /dev/null.
- rlimits: address space, CPU seconds, file size, open files, process count (the last
  is not enforced by the kernel for root), no core dumps.
- namespaces (`unshare(2)` through libc): a new user namespace, in it a new network
  namespace (no interface but a down loopback), mount namespace (a fresh /proc that
  shows only the probe's own processes) and PID namespace (the probe is its init: when
  it ends, the kernel kills every process it left, setsid daemons included).
- Landlock (Linux 5.13+): writes only inside the probe's directory, reads only below
  the Python installation, the project root and the probe's directory (not $HOME, not
  /proc of other processes, not /etc), no `execve` at all (so no subprocess), no TCP
  connect/bind (ABI 4+), no signals to or abstract sockets of processes outside (ABI 6+).
- capabilities the user namespace granted are dropped; `no_new_privs` is set.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import struct
import sys

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 1 << 14, 1 << 18
# Landlock syscalls (the same numbers on every architecture since they were added).
SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
SYS_CAPSET = {"x86_64": 126, "aarch64": 91}
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
# Filesystem access rights by the ABI that introduced them.
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1, 2, 4, 8
FS_ABI1 = (1 << 13) - 1  # EXECUTE ... MAKE_SYM
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2
# Files outside the allowed trees a Python process may need to read.
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/dev/null", "/dev/urandom")

_libc = None


def libc():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
    return _libc


def prctl(option: int, value: int) -> bool:
    return libc().prctl(option, ctypes.c_ulong(value), *[ctypes.c_ulong(0)] * 3) == 0


def worker_setup() -> None:
    """The warm worker: not ptrace-able or readable in /proc by its probes, and the
    reaper of every process they orphan (so none outlives the probe)."""
    prctl(PR_SET_DUMPABLE, 0)
    prctl(PR_SET_CHILD_SUBREAPER, 1)


def close_fds(keep: int) -> int:
    """Close every descriptor but `keep` (moved to 3) and make 0/1/2 /dev/null."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        if fd != null:
            os.dup2(null, fd)
    if keep != 3:
        os.dup2(keep, 3)
    os.closerange(4, _max_fd())
    return 3


def _max_fd() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return min(soft, 1 << 16) if soft != resource.RLIM_INFINITY else 1 << 16


def _processes_of(uid: int) -> int:
    count = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):
                count += os.stat(f"/proc/{name}").st_uid == uid
    return count


def set_limits(memory: int, cpu_seconds: int, file_size: int, processes: int) -> None:
    """Hard limits: the probe cannot raise them again."""
    limits = {
        resource.RLIMIT_AS: memory,
        resource.RLIMIT_CPU: cpu_seconds,
        resource.RLIMIT_FSIZE: file_size,
        resource.RLIMIT_CORE: 0,
        resource.RLIMIT_NOFILE: 256,
        resource.RLIMIT_NPROC: _processes_of(os.getuid()) + processes,
    }
    for kind, value in limits.items():
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(kind, (value, value))


def _write(path: str, text: str) -> None:
    with open(path, "w") as file:
        file.write(text)


def enter_namespaces() -> bool:
    """New user, mount, network and PID namespaces (the next child is the PID 1)."""
    uid, gid = os.getuid(), os.getgid()
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID
    if libc().unshare(flags) != 0:
        return False
    try:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"0 {uid} 1")
        _write("/proc/self/gid_map", f"0 {gid} 1")
    except OSError:
        return False
    return True


def mount_private_proc() -> bool:
    """In the new PID namespace's init: a /proc that shows only the probe's processes."""
    c = libc()
    if c.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return False
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    return c.mount(b"proc", b"/proc", b"proc", flags, None) == 0


def drop_capabilities() -> bool:
    """Empty effective, permitted and inheritable sets (those the user namespace gave)."""
    number = SYS_CAPSET.get(os.uname().machine)
    if number is None:
        return False
    header = struct.pack("Ii", 0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = bytes(24)  # two empty __user_cap_data_struct
    return libc().syscall(number, header, data) == 0


def landlock_abi() -> int:
    abi = libc().syscall(
        SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), LANDLOCK_CREATE_RULESET_VERSION
    )
    return max(int(abi), 0)


def landlock(read_trees: list[str], write_tree: str) -> int:
    """Restrict this process (and what it forks) to the trees; the Landlock ABI used, or 0."""
    abi = landlock_abi()
    if abi < 1:
        return 0
    handled = FS_ABI1 | (FS_REFER if abi >= 2 else 0) | (FS_TRUNCATE if abi >= 3 else 0)
    handled |= FS_IOCTL_DEV if abi >= 5 else 0
    net = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    attr = struct.pack("QQQ", handled, net, scoped)[: 8 if abi < 4 else 16 if abi < 6 else 24]
    c = libc()
    ruleset = c.syscall(SYS_LANDLOCK_CREATE_RULESET, attr, ctypes.c_size_t(len(attr)), 0)
    if ruleset < 0:
        return 0
    try:
        read = FS_READ_FILE | FS_READ_DIR
        write = handled & ~FS_EXECUTE
        rules = [(tree, read) for tree in read_trees] + [(write_tree, write)]
        rules += [(path, FS_READ_FILE) for path in SYSTEM_FILES]
        rules.append((os.devnull, FS_WRITE_FILE))
        for path, rights in rules:
            _add_rule(ruleset, path, rights)
        if not prctl(PR_SET_NO_NEW_PRIVS, 1):
            return 0
        if c.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
            return 0
    finally:
        os.close(ruleset)
    return abi


def _add_rule(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        attr = struct.pack("=Qi", rights, fd)
        libc().syscall(SYS_LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, attr, 0)
    finally:
        os.close(fd)


def python_trees() -> list[str]:
    """Where this interpreter reads its modules from (stdlib, site-packages, gradlint)."""
    trees = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    trees.update(p for p in sys.path if p and os.path.isdir(p))
    return sorted({os.path.realpath(t) for t in trees} | trees)
