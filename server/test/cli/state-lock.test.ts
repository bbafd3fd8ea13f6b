/**
 * One Collie per state directory (D-8): the lock names the running Collie's pid and port, a lock
 * whose Collie is gone is taken over, and a second `collie serve` on the same directory says so in
 * one line and exits before touching anything.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, test } from "node:test";
import { LOCK_FILE, lockStateDir, StateDirInUse } from "../../src/cli/state-lock.ts";
import { collie, collieProcess } from "../helpers/cli.ts";
import { removeTempDirs, tempDir, until } from "../helpers/wait.ts";

const children: ChildProcess[] = [];
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) {
    c.kill("SIGTERM");
    await once(c, "exit");
  }
  removeTempDirs();
});

/** A real other process, to hold a lock as another Collie would. */
async function otherProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], { stdio: "ignore" });
  children.push(child);
  await once(child, "spawn");
  return child;
}

async function exited(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return child.pid!;
}

/** A process that has exited but is never reaped: it ends after its parent exec'd into a program that never waits. */
async function zombieProcess(): Promise<number> {
  const holder = spawn("sh", ["-c", "sleep 0.2 & echo $!; exec sleep 1000"], { stdio: ["ignore", "pipe", "ignore"] });
  children.push(holder);
  const [line] = (await once(createInterface({ input: holder.stdout! }), "line")) as [string];
  const pid = Number(line);
  await until(() => /^\S+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8")), `pid ${pid} a zombie`);
  return pid;
}

test("a state directory held by a running process is refused, naming its pid and port", async () => {
  const dir = join(tempDir(), "state");
  const other = await otherProcess();
  const theirs = lockStateDir(dir, other.pid);
  assert.throws(() => lockStateDir(dir), (err: unknown) => {
    assert.ok(err instanceof StateDirInUse);
    assert.equal(err.holder.pid, other.pid);
    assert.match(err.message, new RegExp(`^a Collie is already running with this state directory \\(pid ${other.pid}, still starting\\)`));
    return true;
  });
  theirs.setPort(7719);
  assert.throws(() => lockStateDir(dir), new RegExp(`\\(pid ${other.pid}, port 7719\\)`));
  assert.deepEqual(readdirSync(dir), [LOCK_FILE], "nothing but the lock in the directory");
  assert.equal(statSync(dir).mode & 0o777, 0o700);
});

test("a lock whose Collie is gone, whose pid now names another program, or that is garbage is taken over", async () => {
  const dir = join(tempDir(), "state");
  const dead = await exited();
  assert.equal(lockStateDir(dir, dead).tookOverStale, false); // as a Collie killed by SIGKILL leaves it
  const mine = lockStateDir(dir);
  assert.equal(mine.tookOverStale, true, "a sign the directory was used (store/state-check.ts)");
  assert.equal(JSON.parse(readFileSync(mine.path, "utf8")).pid, process.pid);
  mine.release();
  assert.equal(existsSync(mine.path), false);

  // The pid is alive but started at another time: a reused pid, not the Collie that wrote the lock.
  const other = await otherProcess();
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: other.pid, port: 7717, startTicks: 1 }));
  lockStateDir(dir).release();

  // A Collie that died under a parent that never reaps it (a container's pid 1) stays a zombie.
  const zombie = await zombieProcess();
  lockStateDir(dir, zombie);
  lockStateDir(dir).release();

  writeFileSync(join(dir, LOCK_FILE), "{half a lo");
  const again = lockStateDir(dir);
  again.setPort(1234);
  assert.deepEqual(JSON.parse(readFileSync(again.path, "utf8")).port, 1234);
  again.release();
});

test("release leaves a lock another Collie has taken since", async () => {
  const dir = join(tempDir(), "state");
  const mine = lockStateDir(dir);
  const other = await otherProcess();
  writeFileSync(mine.path, JSON.stringify({ pid: other.pid, port: 1, startTicks: null }));
  mine.release();
  assert.equal(existsSync(mine.path), true);
});

test("a second collie serve on the same state directory says who runs it and exits, touching nothing", async () => {
  const dir = tempDir();
  const state = join(dir, "state");
  const first = collieProcess(["serve", "--sources", join(dir, "none.json"), "--state-dir", state, "--port", "0"]);
  children.push(first);
  const out: string[] = [];
  createInterface({ input: first.stdout! }).on("line", (l) => out.push(l));
  const url = await until(() => out.map((l) => /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(l)).find(Boolean), () => `the first Collie listening; ${out.join("\n")}`);
  const before = readdirSync(state).sort();
  const socket = statSync(join(state, "example", "desk.sock"));

  const second = await collie(["serve", "--sources", join(dir, "none.json"), "--state-dir", state, "--port", "0"]);
  assert.equal(second.code, 1);
  assert.equal(second.stdout, "");
  assert.equal(second.stderr, `collie: a Collie is already running with this state directory (pid ${first.pid}, port ${url[2]}): ${state}. Stop it first, or give this one another --state-dir.\n`);
  assert.deepEqual(readdirSync(state).sort(), before);
  assert.equal(statSync(join(state, "example", "desk.sock")).ino, socket.ino, "the example agent's socket was left alone");
  await until(async () => /^desk\s+ready/m.test((await collie(["agents", "--state-dir", state])).stdout), "the first Collie still serving its example agent");

  first.kill("SIGTERM");
  await once(first, "exit");
  assert.equal(existsSync(join(state, LOCK_FILE)), false, "a stopped Collie leaves no lock");
});
