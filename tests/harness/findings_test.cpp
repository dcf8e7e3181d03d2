#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/report/filed_reports.h"
#include "harness/report/findings.h"
#include "harness/run/systems.h"
#include "ir/text.h"

using namespace vf;
namespace fs = std::filesystem;

namespace {

std::string tempDir(const std::string &name) {
  auto d = fs::temp_directory_path() / ("vmapfuzz-unit-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

nlohmann::json readJson(const std::string &path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

Case aCase() {
  return parseCase("vmap size=2 in_dims=(0) out_dims=(0)\ndata_seed 3\nfunc(%0: f32[2]) {\n"
                   "  %1: f32[] = sum_all(%0)\n  %2: bool[] = gt_scalar(%1) {value=0.0}\n"
                   "  %3: f32[2] = cond(%2) [\n    () {\n      %4: f32[2] = neg(%0)\n      yield %4\n    }\n"
                   "    () {\n      %5: f32[2] = sin(%0)\n      yield %5\n    }\n  ]\n  return %3\n}\n");
}

CaseResult aBatchedError() {
  CaseResult r;
  r.verdict = Verdict::BatchedError;
  r.errorType = "ValueError";
  r.errorMessage = "vmap: Expected all tensors to have the same size, got sizes [3, 5]";
  r.summary = "ValueError: " + r.errorMessage;
  r.expected = {at::ones({2, 2})};
  return r;
}

/// The report folders of `dir`: its entries but the lock and folders being filed (dot names).
int reportFolders(const std::string &dir) {
  int n = 0;
  for (const auto &e : fs::directory_iterator(dir)) n += e.path().filename().string()[0] != '.';
  return n;
}

} // namespace

TEST(FindingStore, FilesANewSignatureOnceAndCountsLaterHits) {
  std::string dir = tempDir("store"), corpus = tempDir("corpus");
  StoreOptions opt;
  opt.corpusDir = corpus;
  opt.environment = {{"torch", "9.9"}};
  FindingStore store(dir, opt);
  auto first = store.record(aCase(), aBatchedError(), "vmapfuzz gen --case-seed 1");
  EXPECT_TRUE(first.isNew);
  for (const char *f : {"case.vf", "program.py", "repro.py", "report.md", "result.txt", "meta.json"})
    EXPECT_TRUE(fs::exists(first.dir + "/" + f)) << f;
  EXPECT_EQ(parseCase([&] {
              std::ifstream in(first.dir + "/case.vf");
              return std::string((std::istreambuf_iterator<char>(in)), {});
            }()),
            aCase());
  auto meta = readJson(first.dir + "/meta.json");
  EXPECT_EQ(meta["hits"], 1);
  EXPECT_EQ(meta["status"], "open");
  EXPECT_EQ(meta["environment"]["torch"], "9.9");
  std::ifstream md(first.dir + "/report.md");
  std::string report((std::istreambuf_iterator<char>(md)), {});
  EXPECT_NE(report.find("# torch.vmap of torch.cond raises ValueError where each example alone runs"), std::string::npos) << report;
  EXPECT_NE(report.find("vmapfuzz gen --case-seed 1"), std::string::npos);
  EXPECT_EQ(std::distance(fs::directory_iterator(corpus), fs::directory_iterator()), 1);

  // The same bug again (other numbers in the message): no new folder, one more hit.
  CaseResult again = aBatchedError();
  again.errorMessage = "vmap: Expected all tensors to have the same size, got sizes [2, 7]";
  auto second = store.record(aCase(), again, "x");
  EXPECT_FALSE(second.isNew);
  EXPECT_EQ(second.dir, first.dir);
  EXPECT_EQ(readJson(first.dir + "/meta.json")["hits"], 2);
  EXPECT_EQ(reportFolders(dir), 1);
  EXPECT_EQ(store.newCount(), 1u);

  // A later campaign over the same directory knows the signature already.
  FindingStore later(dir, opt);
  EXPECT_TRUE(later.known(signatureOf(aCase(), aBatchedError())));
  auto third = later.record(aCase(), aBatchedError(), "y");
  EXPECT_FALSE(third.isNew);
  EXPECT_EQ(later.newCount(), 0u);
  EXPECT_EQ(readJson(first.dir + "/meta.json")["hits"], 3);
}

TEST(FiledReports, RecheckMarksOpenAndFixedAndTheSummariesFollow) {
  std::string dir = tempDir("recheck");
  FindingStore store(dir);
  auto a = store.record(aCase(), aBatchedError(), "r1");
  CaseResult mismatch;
  mismatch.verdict = Verdict::Mismatch;
  mismatch.summary = "output 0: 2 of 4 elements differ";
  mismatch.expected = mismatch.actual = {at::zeros({2})};
  Case other = aCase();
  other.program.body.stmts.erase(other.program.body.stmts.begin() + 2); // no cond: another signature
  other.program.body.yields = {1};
  auto b = store.record(other, mismatch, "r2");
  ASSERT_NE(a.dir, b.dir);
  // Stand-in repro scripts run by /bin/sh: one still fails (exit 1), one is fixed (exit 0).
  std::ofstream(a.dir + "/repro.py") << "exit 1\n";
  std::ofstream(b.dir + "/repro.py") << "exit 0\n";
  auto reports = loadReports(dir);
  std::ostringstream log;
  EXPECT_EQ(recheckReports(reports, "/bin/sh", "9.9", log), 1);
  EXPECT_EQ(readJson(a.dir + "/meta.json")["status"], "open");
  EXPECT_EQ(readJson(b.dir + "/meta.json")["status"], "fixed");
  EXPECT_EQ(readJson(b.dir + "/meta.json")["checked_with_torch"], "9.9");
  std::string junit = reportsJUnit(loadReports(dir));
  EXPECT_NE(junit.find("tests=\"2\" failures=\"1\""), std::string::npos) << junit;
  EXPECT_NE(reportsMarkdown(loadReports(dir)).find("2 filed: 1 open, 1 fixed"), std::string::npos);
}

TEST(FiledReports, FilesOpenReportsThroughGh) {
  std::string dir = tempDir("gh"), bin = tempDir("fakegh");
  FindingStore store(dir);
  auto rec = store.record(aCase(), aBatchedError(), "r1");
  // A fake gh that records its arguments and prints an issue URL.
  std::string gh = bin + "/gh";
  std::ofstream(gh) << "#!/bin/sh\nprintf '%s\\n' \"$@\" > " << bin << "/args\necho https://example.invalid/issues/7\n";
  fs::permissions(gh, fs::perms::owner_all);
  auto reports = loadReports(dir);
  std::ostringstream log;
  EXPECT_EQ(fileIssues(reports, gh, log), 1);
  std::ifstream in(bin + "/args");
  std::string args((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(args.find("issue\ncreate\n--title\ntorch.vmap of torch.cond raises ValueError"), std::string::npos) << args;
  EXPECT_NE(args.find(rec.dir + "/report.md"), std::string::npos) << args;
  EXPECT_EQ(readJson(rec.dir + "/meta.json")["issue_url"], "https://example.invalid/issues/7");
  // Filed once: a second run files nothing.
  reports = loadReports(dir);
  EXPECT_EQ(fileIssues(reports, gh, log), 0);
}

TEST(FiledReports, AMalformedMetaJsonIsAnError) {
  std::string dir = tempDir("badmeta");
  fs::create_directories(dir + "/x");
  std::ofstream(dir + "/x/meta.json") << "{not json";
  EXPECT_THROW(loadReports(dir), std::invalid_argument);
}

TEST(FindingStore, RecordsPreloadedFilesAndReproRunsThemFromACopy) {
  std::string dir = tempDir("preload-store"), a = tempDir("preload-a"), b = tempDir("preload-b");
  std::ofstream(a + "/rule.py") << "print('a')\n";
  std::ofstream(b + "/rule.py") << "print('b')\n";
  StoreOptions opt;
  opt.environment = {{"torch", "9.9"},
                     {"preload", {{{"path", a + "/rule.py"}, {"sha256", "aaaa"}}, {{"path", b + "/rule.py"}, {"sha256", "bbbb"}}}}};
  FindingStore store(dir, opt);
  auto rec = store.record(aCase(), aBatchedError(), "vmapfuzz replay --preload " + a + "/rule.py case.vf");
  // Two files of one name: each copy is prefixed with its position.
  EXPECT_TRUE(fs::exists(rec.dir + "/preload/0-rule.py"));
  EXPECT_TRUE(fs::exists(rec.dir + "/preload/1-rule.py"));
  auto result = [&](const std::string &f) {
    std::ifstream in(rec.dir + "/" + f);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  };
  EXPECT_NE(result("result.txt").find("preload: " + b + "/rule.py sha256 bbbb"), std::string::npos) << result("result.txt");
  EXPECT_NE(result("report.md").find("`" + a + "/rule.py`, sha256 `aaaa`"), std::string::npos) << result("report.md");
  std::string repro = result("repro.py");
  EXPECT_NE(repro.find("(\"1-rule.py\", \"" + b + "/rule.py\", \"bbbb\")"), std::string::npos) << repro;
  EXPECT_LT(repro.find("_runpy.run_path"), repro.find("def program")) << "the preload runs before the case";
  EXPECT_EQ(readJson(rec.dir + "/meta.json")["environment"]["preload"][1]["sha256"], "bbbb");
}

TEST(FindingStore, WithoutPreloadsTheReproHasNoPreloadBlock) {
  FindingStore store(tempDir("no-preload"), StoreOptions{});
  auto rec = store.record(aCase(), aBatchedError(), "vmapfuzz gen --case-seed 1");
  std::ifstream in(rec.dir + "/repro.py");
  std::string repro((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(repro.find("runpy"), std::string::npos);
  EXPECT_FALSE(fs::exists(rec.dir + "/preload"));
}

TEST(FindingStore, ConfirmsEachNewReproInTheBackgroundAndWritesTheResultWhenSettled) {
  // A stand-in for python: it takes a moment, then exits as repro.py would while the bug is
  // there (1). The campaign goes on meanwhile; settle() writes the result everywhere.
  std::string dir = tempDir("confirm"), bin = tempDir("confirm-bin");
  std::string fake = bin + "/python";
  std::ofstream(fake) << "#!/bin/sh\nsleep 1\necho \"FAIL: ran $1\"\nexit 1\n";
  fs::permissions(fake, fs::perms::owner_all);
  StoreOptions opt;
  opt.confirmPython = fake;
  FindingRecord rec;
  {
    FindingStore store(dir, opt);
    auto t0 = std::chrono::steady_clock::now();
    rec = store.record(aCase(), aBatchedError(), "vmapfuzz gen --case-seed 1");
    EXPECT_EQ(rec.standalone, kConfirming);
    EXPECT_EQ(store.confirming(), 1u);
    // record() did not wait for the fresh python.
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 60.0);
    EXPECT_EQ(readJson(rec.dir + "/meta.json")["standalone"], kConfirming);
    store.settle();
    EXPECT_EQ(store.confirming(), 0u);
    EXPECT_EQ(store.all().at(rec.signature).standalone, "confirmed");
  }
  EXPECT_EQ(readJson(rec.dir + "/meta.json")["standalone"], "confirmed");
  std::ifstream in(rec.dir + "/result.txt");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("standalone repro.py (fresh python, only torch): confirmed"), std::string::npos) << text;
  std::ifstream out(rec.dir + "/repro.out");
  std::string said((std::istreambuf_iterator<char>(out)), {});
  EXPECT_NE(said.find("FAIL: ran repro.py"), std::string::npos) << said;
}

TEST(FindingStore, AConfirmationStopsAtTheCampaignsDeadlineAndNoneStartsPastIt) {
  // A repro.py that would run for a minute: the deadline, 4 s away, stops it; the finding says
  // it was not checked. Past the deadline no fresh python starts at all.
  std::string dir = tempDir("confirm-deadline"), bin = tempDir("confirm-deadline-bin");
  std::string fake = bin + "/python";
  std::ofstream(fake) << "#!/bin/sh\nsleep 60\nexit 1\n";
  fs::permissions(fake, fs::perms::owner_all);
  StoreOptions opt;
  opt.confirmPython = fake;
  FindingStore store(dir, opt);
  store.setDeadline(std::chrono::steady_clock::now() + std::chrono::seconds(4));
  FindingRecord rec = store.record(aCase(), aBatchedError(), "vmapfuzz gen --case-seed 1");
  EXPECT_EQ(rec.standalone, kConfirming);
  store.settle();
  EXPECT_EQ(store.all().at(rec.signature).standalone.rfind("not checked (repro.py still ran after", 0), 0u)
      << store.all().at(rec.signature).standalone;
  EXPECT_NE(readJson(rec.dir + "/meta.json")["standalone"].get<std::string>().find("not checked"), std::string::npos);

  store.setDeadline(std::chrono::steady_clock::now());
  CaseResult other = aBatchedError();
  other.errorMessage = "another planted failure";
  other.summary = "ValueError: another planted failure";
  FindingRecord late = store.record(aCase(), other, "vmapfuzz gen --case-seed 2");
  ASSERT_NE(late.signature, rec.signature);
  EXPECT_EQ(store.confirming(), 0u) << "no fresh python starts past the deadline";
  EXPECT_EQ(late.standalone.rfind("not checked (filed as the campaign's time ran out", 0), 0u) << late.standalone;
}

TEST(FindingStore, AConfirmationStillRunningAtTheEndIsWrittenByTheDestructor) {
  std::string dir = tempDir("confirm-dtor"), bin = tempDir("confirm-dtor-bin");
  std::string fake = bin + "/python";
  std::ofstream(fake) << "#!/bin/sh\nsleep 1\nexit 0\n";
  fs::permissions(fake, fs::perms::owner_all);
  StoreOptions opt;
  opt.confirmPython = fake;
  std::string reportDir;
  {
    FindingStore store(dir, opt);
    reportDir = store.record(aCase(), aBatchedError(), "vmapfuzz gen --case-seed 1").dir;
  }
  EXPECT_EQ(readJson(reportDir + "/meta.json")["standalone"], "not reproduced");
}

// Filing between processes (filing.h): the lock, the merge of hit counts, staging, leftovers.

TEST(Filing, TwoStoresOnOneFolderAddUpTheirHitsInsteadOfOverwriting) {
  std::string dir = tempDir("two-stores");
  FindingStore a(dir), b(dir); // two campaigns started at once: neither knows the other's filing
  auto first = a.record(aCase(), aBatchedError(), "a");
  EXPECT_TRUE(first.isNew);
  auto fromB = b.record(aCase(), aBatchedError(), "b"); // b files nothing twice: a hit on a's folder
  EXPECT_FALSE(fromB.isNew);
  EXPECT_EQ(fromB.dir, first.dir);
  EXPECT_EQ(a.record(aCase(), aBatchedError(), "a").hits, 3); // what is on disk, not a's own count of 2
  EXPECT_EQ(readJson(first.dir + "/meta.json")["hits"], 3);
  EXPECT_EQ(a.all().begin()->second.hitsNow + b.all().begin()->second.hitsNow, 3);
  EXPECT_EQ(b.newCount(), 0u);
  EXPECT_EQ(reportFolders(dir), 1);
}

TEST(Filing, ProcessesRacingOnOneSignatureFileItOnceAndEveryHitCounts) {
  std::string dir = tempDir("race");
  constexpr int kProcs = 4, kHits = 5;
  std::vector<pid_t> kids;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        FindingStore store(dir);
        for (int i = 0; i < kHits; ++i) store.record(aCase(), aBatchedError(), "p" + std::to_string(p));
      } catch (const std::exception &e) {
        std::fprintf(stderr, "child %d: %s\n", p, e.what());
        code = 1;
      }
      _exit(code);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int st = 0;
    ASSERT_EQ(waitpid(k, &st, 0), k);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  ASSERT_EQ(reportFolders(dir), 1);
  EXPECT_EQ(loadReports(dir).front().meta["hits"], kProcs * kHits);
  for (const auto &e : fs::recursive_directory_iterator(dir))
    EXPECT_FALSE(isFilingTemporary(e.path().filename().string())) << e.path();
}

TEST(Filing, WhatADeadWriterOfThisHostLeftIsRemovedByTheNextStore) {
  std::string dir = tempDir("leftovers");
  FindingStore store(dir);
  auto rec = store.record(aCase(), aBatchedError(), "x");
  pid_t dead = fork(); // a process that is gone by the time the next store opens the folder
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::string deadTag = std::to_string(dead) + "@" + host, liveTag = std::to_string(getppid()) + "@" + host;
  std::ofstream(rec.dir + "/meta.json.tmp.0." + deadTag) << "{";
  fs::create_directories(dir + "/.filing-mismatch-0123abcd." + deadTag);
  std::ofstream(dir + "/.filing-mismatch-0123abcd." + deadTag + "/case.vf") << "half";
  std::ofstream(rec.dir + "/meta.json.tmp.1." + liveTag) << "{";            // a live writer's
  std::ofstream(rec.dir + "/meta.json.tmp.2." + std::to_string(dead) + "@elsewhere") << "{"; // another host's
  FindingStore next(dir);
  EXPECT_FALSE(fs::exists(rec.dir + "/meta.json.tmp.0." + deadTag));
  EXPECT_FALSE(fs::exists(dir + "/.filing-mismatch-0123abcd." + deadTag));
  EXPECT_TRUE(fs::exists(rec.dir + "/meta.json.tmp.1." + liveTag));
  EXPECT_TRUE(fs::exists(rec.dir + "/meta.json.tmp.2." + std::to_string(dead) + "@elsewhere"));
  EXPECT_TRUE(next.known(rec.signature));
  EXPECT_EQ(loadReports(dir).size(), 1u);
}

TEST(Filing, AFolderNotPublishedIsRemovedAndOneInPlaceIsNotOverwritten) {
  std::string dir = tempDir("staged");
  {
    ReportsLock lock(dir);
    StagedFolder staged(lock, "mismatch-00000000");
    staged.write("case.vf", "x");
    EXPECT_TRUE(fs::exists(staged.path() + "/case.vf"));
  } // a write failed after this one: the folder goes
  EXPECT_EQ(reportFolders(dir), 0);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1); // the lock alone
  ReportsLock lock(dir);
  fs::create_directories(dir + "/mismatch-00000000");
  StagedFolder again(lock, "mismatch-00000000");
  try {
    again.publish();
    FAIL() << "published over a folder in place";
  } catch (const FilingError &e) {
    EXPECT_NE(std::string(e.what()).find("cannot file a finding into " + dir + "/mismatch-00000000"), std::string::npos)
        << e.what();
  }
}

TEST(Filing, AVanishedReportFolderIsAFilingErrorThatCountsNothing) {
  std::string dir = tempDir("vanished");
  FindingStore store(dir);
  auto rec = store.record(aCase(), aBatchedError(), "x");
  fs::remove_all(rec.dir);
  try {
    store.record(aCase(), aBatchedError(), "x");
    FAIL() << "a hit counted into a folder that is gone";
  } catch (const FilingError &e) {
    EXPECT_NE(std::string(e.what()).find("cannot file a finding into " + rec.dir + ": No such file or directory"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(store.all().at(rec.signature).hitsNow, 1);
}

TEST(Filing, RecheckKeepsTheHitsACampaignCountedMeanwhile) {
  std::string dir = tempDir("recheck-merge");
  FindingStore store(dir);
  auto rec = store.record(aCase(), aBatchedError(), "x");
  std::ofstream(rec.dir + "/repro.py") << "exit 1\n";
  auto reports = loadReports(dir); // read before the campaign's next hit
  store.record(aCase(), aBatchedError(), "x");
  std::ostringstream log;
  recheckReports(reports, "/bin/sh", "9.9", log);
  auto meta = readJson(rec.dir + "/meta.json");
  EXPECT_EQ(meta["hits"], 2);
  EXPECT_EQ(meta["status"], "open");
}

TEST(FindingStore, AFindingsFolderIsTheReportsAndItsBackendsReproFiles) {
  // The store files what the system's ReproWriter gives (harness/backends/repro.h) and its own
  // reports; nothing else. The torch backend's writer: program.py, repro.py, preload copies.
  std::string dir = tempDir("writer-files"), a = tempDir("writer-preload");
  std::ofstream(a + "/rule.py") << "print('a')\n";
  StoreOptions opt;
  opt.environment = {{"preload", {{{"path", a + "/rule.py"}, {"sha256", "aaaa"}}}}};
  FindingStore store(dir, opt);
  const CaseResult r = aBatchedError();
  auto rec = store.record(aCase(), r, "vmapfuzz replay case.vf");
  const ReproWriter &w = reproWriterFor(r.system);
  ReproMaterial m;
  m.environment = opt.environment;
  std::set<std::string> expected = {"case.vf", "result.txt", "report.md", "meta.json"}, filed;
  for (const auto &f : w.files(aCase(), r.system, m, "h")) expected.insert(f.name);
  EXPECT_EQ(expected, (std::set<std::string>{"case.vf", "result.txt", "report.md", "meta.json", "program.py", "repro.py",
                                             "preload/rule.py"}));
  for (const auto &e : fs::recursive_directory_iterator(rec.dir))
    if (e.is_regular_file()) filed.insert(fs::relative(e.path(), rec.dir).string());
  EXPECT_EQ(filed, expected);
  // report.md shows the writer's program in its language.
  std::ifstream in(rec.dir + "/report.md");
  const std::string md((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(md.find("```" + w.language() + "\n" + w.program(aCase(), r.system) + "```"), std::string::npos);
  EXPECT_EQ(w.scriptName(), "repro.py");
}
