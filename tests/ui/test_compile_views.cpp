// What the dashboard says about torch.compile outside the charts: a run's detail (above all a
// run that claims compile but did not get it), the doctor's rows, and the phase text that keeps a
// long compile from looking like a hang.
#include "controller/doctor_job.h"
#include "models/doctor_model.h"
#include "models/environment_model.h"
#include "models/phase_text.h"
#include "models/run_detail.h"
#include "models/status_colors.h"
#include "report/compile_record.h"
#include "supervisor/worker_command.h"
#include "pages/environment_page.h"

#include "common/failure.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QDir>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace stepscope;
using namespace stepscope::ui;
using namespace stepscope::report;

namespace
{

store::RunRecord compiledRun(const std::string &compileJson)
{
    store::RunRecord run;
    run.id = 42;
    run.repeatIndex = 0;
    run.configName = "python cpu b8 64px c10 compile-default";
    run.configJson = R"j({"runtime":"python","device":"cpu","compile":"default"})j";
    run.compileJson = compileJson;
    run.compileCache = "cold";
    run.cacheDirs = R"j({"TORCHINDUCTOR_CACHE_DIR":"/nonexistent/cc/cold-x/inductor"})j";
    return run;
}

// Recorded from `python3 -u stepscope_worker.py --doctor --device cpu` on a machine with torch 2.11
// and no C++ compiler, plus one line of another kind and a status word the worker made up.
const char *const kWithTorch =
    R"j({"type":"doctor","item":"python","status":"ok","value":"3.11.2 (/opt/venv/bin/python3)","fix":""})j"
    "\n"
    R"j({"type":"doctor","item":"torch","status":"ok","value":"2.11.0+cu128","fix":""})j"
    "\n"
    R"j({"type":"log","line":"importing torchvision"})j"
    "\n"
    R"j({"type":"doctor","item":"gpu","status":"warn","value":"none: CPU only","fix":"Use a GPU machine for GPU figures."})j"
    "\n"
    R"j({"type":"doctor","item":"c++ compiler","status":"fail","value":"none found","fix":"apt-get install g++"})j"
    "\n"
    R"j({"type":"doctor","item":"triton","status":"maybe","value":"3.5.0","fix":""})j"
    "\n";

QList<DoctorItem> parseAll(const QByteArray &text)
{
    QList<DoctorItem> items;
    for (const QByteArray &line : text.split('\n'))
        if (const auto item = supervisor::parseDoctorLine(line))
            items << *item;
    return items;
}

} // namespace

class TestCompileViews : public QObject
{
    Q_OBJECT
  private Q_SLOTS:
    void notCompiledRunSaysWhy()
    {
        store::RunRecord run = compiledRun(
            R"j({"mode":"default","backend":"inductor","cache":"cold","compile_s":0.4,"graphs":0,"graph_breaks":0,)j"
            R"j("compiled":false,"fallback_reason":"dynamo captured no graph: the step ran eager"})j");
        run.status = RunStatus::Failed;
        run.category = FailureCategory::CompileFailed;
        run.message = "torch.compile fell back to eager";
        QString text;
        QVERIFY(runNotCompiled(run, &text));
        QCOMPARE(text, QString("NOT compiled: dynamo captured no graph: the step ran eager"));
        const QString html = runDetailHtml(run);
        QVERIFY2(html.contains("NOT compiled: dynamo captured no graph: the step ran eager"), qPrintable(html));
        QVERIFY(html.contains("left out of the ledger"));
        QVERIFY(html.contains("compile-failed"));
        const auto fix = fixFor(FailureCategory::CompileFailed);
        QVERIFY(html.contains(QString::fromUtf8(fix.data(), int(fix.size())).toHtmlEscaped()));

        // A compile that failed before any record: the failure message is the reason.
        store::RunRecord crashed = compiledRun({});
        crashed.status = RunStatus::Failed;
        crashed.category = FailureCategory::CompileFailed;
        crashed.message = "torch._inductor: lowering failed for aten.convolution_backward";
        QVERIFY(runDetailHtml(crashed).contains(
            "NOT compiled: torch._inductor: lowering failed for aten.convolution_backward"));
    }

    // A whole step compiled under reduce-overhead that failed on step 2 with the cudagraph-trees
    // error (docs/results/h200-compile.md): it was compiled, so the detail never says "NOT compiled"
    // above "Compiled: yes"; its failure gets the error's own fix, and a long graph-break reason is
    // shown whole.
    void compiledThenFailedRunNeverContradictsItself()
    {
        const QString longReason =
            QStringLiteral("Unsupported: call_function BuiltinVariable(print) [ConstantVariable(str)] {} ") +
            QString(400, QLatin1Char('x')) + QStringLiteral(" at train_step.py:42");
        store::RunRecord run = compiledRun(
            (R"j({"mode":"reduce-overhead","backend":"inductor","target":"step","cache":"cold","compile_s":29.5,)j"
             R"j("graphs":1,"graph_breaks":1,"break_reasons":[")j" +
             longReason.toStdString() + R"j("],"compiled":true,"fallback_reason":""})j"));
        run.status = RunStatus::Failed;
        run.category = FailureCategory::CompileFailed;
        run.message = "torch.compile (reduce-overhead, inductor, step) failed during the measured steps: Error: "
                      "accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run.";
        run.detail = "Traceback (most recent call last):\n  File \"torch/optim/sgd.py\", line 127";
        QVERIFY(!runNotCompiled(run));
        const QString html = runDetailHtml(run);
        QVERIFY2(!html.contains("NOT compiled"), qPrintable(html));
        QVERIFY2(html.contains("yes; the run failed after compiling"), qPrintable(html));
        QVERIFY(html.contains("compile-failed"));
        const auto fix = fixFor(Failure{*run.category, run.message, run.detail});
        QVERIFY(fix != fixFor(FailureCategory::CompileFailed));
        QVERIFY2(html.contains(QString::fromUtf8(fix.data(), int(fix.size())).toHtmlEscaped()), qPrintable(html));
        QVERIFY(html.contains("cudagraph_mark_step_begin"));
        QVERIFY2(html.contains(longReason.toHtmlEscaped()), "the graph-break reason is shown whole");
        QCOMPARE(parseCompileRecord(run.compileJson).breakReasons.value(0), longReason);
    }

    void compiledRunShowsItsCompile()
    {
        store::RunRecord run = compiledRun(
            R"j({"mode":"reduce-overhead","backend":"inductor","target":"model","cache":"cold","compile_s":38.5,)j"
            R"j("phases":{"dynamo_tracing_s":2.25,"inductor_backward_s":36.25},"graphs":1,"graph_breaks":2,)j"
            R"j("break_reasons":["Unsupported: call_function <print>"],"recompiles":3,)j"
            R"j("cudagraph_skips":["mutated inputs"],"fx_graph_cache":{"miss":2},"compiled":true})j");
        run.status = RunStatus::Complete;
        run.firstStepSeconds = 41.75;
        QVERIFY(!runNotCompiled(run));
        const QString html = runDetailHtml(run);
        QVERIFY(!html.contains("NOT compiled"));
        for (const char *want : {"reduce-overhead, inductor, model, cold cache", "38.50 s", "41.75 s", "dynamo tracing",
                                 "inductor backward", "36.25 s", "1 graph, 2 graph breaks, 3 recompiles",
                                 "call_function &lt;print&gt;", "mutated inputs", "miss 2", "TORCHINDUCTOR_CACHE_DIR",
                                 "/nonexistent/cc/cold-x/inductor", "removed", "fresh inductor and Triton caches"})
            QVERIFY2(html.contains(QLatin1String(want)), want);

        // A native run has no compile section at all.
        store::RunRecord native;
        native.configJson = R"j({"runtime":"native","compile":"none"})j";
        QVERIFY(compileSectionHtml(native).isEmpty());
        QVERIFY(!runIsCompiled(native));
        QVERIFY(!runNotCompiled(native));
    }

    void compileRecordReadsWhatIsThere()
    {
        const CompileRecord empty = parseCompileRecord(QString());
        QVERIFY(!empty.present);
        QVERIFY(!empty.notCompiled());
        const CompileRecord partial = parseCompileRecord(QStringLiteral(R"j({"mode":"default","graphs":2})j"));
        QVERIFY(partial.present);
        QVERIFY(!partial.compiled.has_value());
        QCOMPARE(compileCountsText(partial), QString("2 graphs"));
        QCOMPARE(compilePhaseName("kernel_compile_wait_s"), QString("kernel compile wait"));
        QCOMPARE(notCompiledText(partial), QString("NOT compiled: the worker gave no reason"));
    }

    void phaseTextCountsTheWait()
    {
        QCOMPARE(phaseStatusText("compiling", 42.7), QString("compiling 0:42"));
        QCOMPARE(phaseStatusText("compiling", 185, true), QString("priming: compiling 3:05"));
        QVERIFY(phaseExplanation("compiling", true).startsWith("Filling the warm cache"));
        QVERIFY(phaseExplanation("capturing").contains("CUDA graph"));
        QCOMPARE(phaseStatusText("capturing", 3725), QString("capturing 1:02:05"));
        QCOMPARE(phaseStatusText("compiling", -1), QString("compiling 0:00"));
        QVERIFY(phaseExplanation("compiling").contains("max-autotune"));
    }

    void doctorLinesBecomeRows()
    {
        const auto items = parseAll(kWithTorch);
        QCOMPARE(items.size(), 5); // the log line is not a row

        DoctorModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        for (const auto &i : items)
            model.append(i);
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(model.count(DoctorStatus::Fail), 2); // c++ compiler and triton's unknown word
        QCOMPARE(model.count(DoctorStatus::Warn), 1);
        QCOMPARE(model.index(4, DoctorModel::Status).data().toString(), QString("fail"));
        const auto colour = [&](int row) {
            return model.index(row, DoctorModel::Status).data(Qt::ForegroundRole).value<QBrush>().color();
        };
        QCOMPARE(colour(0), successColor());
        QCOMPARE(colour(2), warningColor());
        QCOMPARE(colour(3), failureColor());
        QCOMPARE(model.index(3, DoctorModel::Fix).data().toString(), QString("apt-get install g++"));
        QVERIFY(model.index(0, DoctorModel::Fix).data().toString().isEmpty()); // an ok row needs no fix
    }

    // The Environment page shows the doctor service's rows, the native worker's among them, which the
    // dashboard did not check before. A stand-in Python answers the torch lookup with a torch of the
    // release the native worker was built for, so the native worker (the stand-in worker, which
    // answers --cuda-devices with no device) is started, and --doctor with one line.
    void environmentPageShowsTheNativeWorkerRow()
    {
        QTemporaryDir dir;
        const QString version =
            supervisor::expectedTorchVersion().isEmpty() ? QString("2.11.0") : supervisor::expectedTorchVersion();
        const QString torch = dir.filePath("site/torch");
        QVERIFY(QDir().mkpath(torch + "/lib"));
        QFile versionPy(torch + "/version.py");
        QVERIFY(versionPy.open(QIODevice::WriteOnly));
        versionPy.write("__version__ = '" + version.toUtf8() + "'\n");
        versionPy.close();
        QFile python(dir.filePath("python"));
        QVERIFY(python.open(QIODevice::WriteOnly));
        python.write("#!/bin/sh\ncase \"$1\" in\n  -c) echo '" + torch.toUtf8() +
                     "' ;;\n  *) echo '{\"type\":\"doctor\",\"item\":\"torch\",\"status\":\"ok\",\"value\":\"" +
                     version.toUtf8() + "\",\"fix\":\"\"}' ;;\nesac\n");
        python.close();
        python.setPermissions(python.permissions() | QFileDevice::ExeOwner);
        qputenv("STEPSCOPE_NATIVE_WORKER", STEPSCOPE_FAKE_WORKER);
        qputenv("STEPSCOPE_PYTHON_WORKER", python.fileName().toUtf8()); // a script that is there; none is run

        EnvironmentModel environment;
        EnvironmentPage page(&environment);
        QAbstractItemModelTester tester(page.doctorModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy finished(&page, &EnvironmentPage::doctorFinished);
        QSignalSpy asking(page.findChild<DoctorJob *>(), &DoctorJob::askingPython);
        page.runDoctor(python.fileName(), "cpu", {});
        QVERIFY(page.doctorRunning()); // returned at once: the checks run on the job's thread
        QVERIFY(finished.wait(30000));
        qunsetenv("STEPSCOPE_NATIVE_WORKER");
        qunsetenv("STEPSCOPE_PYTHON_WORKER");

        QStringList names;
        for (const DoctorItem &i : page.doctorModel()->items())
            names << i.item;
        QCOMPARE(names, QStringList({"stepscope", "python", "libtorch", "leftovers", "native worker", "torch"}));
        const DoctorItem native = page.doctorModel()->items().at(4);
        QCOMPARE(native.status, DoctorStatus::Ok);
        QCOMPARE(native.value, QString("0 CUDA device(s) seen by LibTorch (%1)").arg(STEPSCOPE_FAKE_WORKER));
        QCOMPARE(finished.first().at(0).toInt(), 0); // no fail
        QCOMPARE(asking.count(), 1);
        QCOMPARE(asking.first().at(0).toString(), QString("cpu"));
        QVERIFY(page.doctorButton()->isEnabled()); // ready to run again
    }
};

QTEST_MAIN(TestCompileViews)
#include "test_compile_views.moc"
