// SPDX-License-Identifier: MIT
#include "session.h"

#include <QFile>
#include <QJsonDocument>

#include "atomic_write.h"

#include <functional>

namespace pe {

namespace {

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

constexpr int kFormatVersion = 1;

} // namespace

QJsonObject toJson(const Session& s) {
    const Params& p = s.params;
    QJsonObject o;
    o[QStringLiteral("format")] = QStringLiteral("pe-explorer-session");
    o[QStringLiteral("version")] = kFormatVersion;
    o[QStringLiteral("scheme")] = qs(toString(p.scheme));
    o[QStringLiteral("n")] = p.n;
    o[QStringLiteral("d")] = p.d;
    o[QStringLiteral("heads")] = p.heads;
    o[QStringLiteral("norm")] = qs(toString(p.norm));
    o[QStringLiteral("mask")] = qs(toString(p.mask));
    o[QStringLiteral("valid_len")] = p.validLen;
    o[QStringLiteral("clip")] = p.clip;
    o[QStringLiteral("base")] = p.base;
    o[QStringLiteral("layout")] = qs(toString(p.layout));
    o[QStringLiteral("rope_convention")] = qs(toString(p.ropeConvention));
    o[QStringLiteral("rope_dims")] = p.ropeDims;
    o[QStringLiteral("rope_scaling")] = qs(toString(p.ropeScaling));
    o[QStringLiteral("rope_scale")] = p.ropeScale;
    o[QStringLiteral("buckets")] = p.buckets;
    o[QStringLiteral("max_distance")] = p.maxDistance;
    o[QStringLiteral("unidirectional")] = p.unidirectional;
    o[QStringLiteral("alibi_mode")] = qs(toString(p.alibiMode));
    o[QStringLiteral("deberta_c2p")] = p.debertaC2P;
    o[QStringLiteral("deberta_p2c")] = p.debertaP2C;
    o[QStringLiteral("p2c_convention")] = qs(toString(p.p2cConvention));
    o[QStringLiteral("deberta_log_buckets")] = p.debertaLogBuckets;
    o[QStringLiteral("deberta_buckets")] = p.debertaBuckets;
    o[QStringLiteral("deberta_max_position")] = p.debertaMaxPosition;
    o[QStringLiteral("txl_clamp_len")] = p.txlClampLen;
    o[QStringLiteral("urpe_bias")] = qs(toString(p.urpeBias));
    o[QStringLiteral("learned_rows")] = p.learnedRows;
    o[QStringLiteral("mlp_features")] = p.mlpFeatures;
    o[QStringLiteral("mlp_hidden")] = p.mlpHidden;
    o[QStringLiteral("cls")] = p.cls;
    o[QStringLiteral("sep")] = p.sep;
    o[QStringLiteral("seed")] = QString::number(p.seed);
    o[QStringLiteral("precision")] = qs(toString(p.precision));
    QJsonObject in;
    in[QStringLiteral("kind")] = toString(s.input.kind);
    in[QStringLiteral("sentence")] = s.input.sentence;
    in[QStringLiteral("text")] = s.input.text;
    in[QStringLiteral("weights")] = toString(s.input.weights);
    o[QStringLiteral("input")] = in;
    if (s.insights) {
        const InsightSettings& st = s.insights->settings;
        QJsonObject ins;
        ins[QStringLiteral("page")] = qs(toString(s.insights->page));
        ins[QStringLiteral("delta")] = st.delta;
        ins[QStringLiteral("kernel")] = st.kernel;
        ins[QStringLiteral("layers")] = st.depth.layers;
        ins[QStringLiteral("residual")] = st.depth.residual;
        ins[QStringLiteral("depth_norm")] = qs(toString(st.depth.norm));
        ins[QStringLiteral("mlp")] = st.depth.mlp;
        o[QStringLiteral("insights")] = ins;
    }
    return o;
}

Expected<Session> sessionFromJson(const QJsonObject& o, QString* ignored) {
    Session s;
    Params& p = s.params;
    QString error;
    auto fail = [&error](const QString& key, const char* what) {
        if (error.isEmpty())
            error = QStringLiteral("session: \"%1\" %2").arg(key, QLatin1String(what));
    };
    auto getInt = [&](const char* k, int& out) {
        const QString key = QLatin1String(k);
        if (!o.contains(key))
            return;
        const QJsonValue v = o.value(key);
        if (!v.isDouble() || v.toDouble() != static_cast<double>(v.toInt()))
            fail(key, "must be an integer");
        else
            out = v.toInt();
    };
    auto getBool = [&](const char* k, bool& out) {
        const QString key = QLatin1String(k);
        if (!o.contains(key))
            return;
        if (!o.value(key).isBool())
            fail(key, "must be true or false");
        else
            out = o.value(key).toBool();
    };
    auto getEnum = [&](const char* k, auto& out, auto parse) {
        const QString key = QLatin1String(k);
        if (!o.contains(key))
            return;
        const auto v = parse(o.value(key).toString().toStdString());
        if (!v)
            fail(key, "has an unknown value");
        else
            out = *v;
    };
    if (o.contains(QStringLiteral("format")) &&
        o.value(QStringLiteral("format")).toString() != QLatin1String("pe-explorer-session"))
        return Error{"not a pe-explorer session file"};
    int version = kFormatVersion;
    getInt("version", version);
    if (!error.isEmpty() || version < 1)
        return Error{"session: \"version\" must be a positive integer"};
    getEnum("scheme", p.scheme, schemeFromString);
    getInt("n", p.n);
    getInt("d", p.d);
    getInt("heads", p.heads);
    getEnum("norm", p.norm, normaliserFromString);
    getEnum("mask", p.mask, maskFromString);
    getInt("valid_len", p.validLen);
    getInt("clip", p.clip);
    auto getDouble = [&](const char* k, double& out) {
        const QString key = QLatin1String(k);
        if (!o.contains(key))
            return;
        if (!o.value(key).isDouble())
            fail(key, "must be a number");
        else
            out = o.value(key).toDouble();
    };
    getDouble("base", p.base);
    getEnum("layout", p.layout, layoutFromString);
    getEnum("rope_convention", p.ropeConvention, ropeConventionFromString);
    getInt("rope_dims", p.ropeDims);
    getEnum("rope_scaling", p.ropeScaling, ropeScalingFromString);
    getDouble("rope_scale", p.ropeScale);
    getInt("buckets", p.buckets);
    getInt("max_distance", p.maxDistance);
    getBool("unidirectional", p.unidirectional);
    getEnum("alibi_mode", p.alibiMode, alibiModeFromString);
    getBool("deberta_c2p", p.debertaC2P);
    getBool("deberta_p2c", p.debertaP2C);
    getEnum("p2c_convention", p.p2cConvention, p2cFromString);
    getBool("deberta_log_buckets", p.debertaLogBuckets);
    getInt("deberta_buckets", p.debertaBuckets);
    getInt("deberta_max_position", p.debertaMaxPosition);
    getInt("txl_clamp_len", p.txlClampLen);
    getEnum("urpe_bias", p.urpeBias, urpeBiasFromString);
    getInt("learned_rows", p.learnedRows);
    getInt("mlp_features", p.mlpFeatures);
    getInt("mlp_hidden", p.mlpHidden);
    getBool("cls", p.cls);
    getBool("sep", p.sep);
    if (o.contains(QStringLiteral("seed"))) {
        bool ok = false;
        const QJsonValue v = o.value(QStringLiteral("seed"));
        const qulonglong seed =
            v.isString() ? v.toString().toULongLong(&ok) : static_cast<qulonglong>(v.toInteger(-1));
        ok = ok || (v.isDouble() && v.toInteger(-1) >= 0);
        if (!ok)
            fail(QStringLiteral("seed"), "must be a non-negative integer");
        else
            p.seed = seed;
    }
    getEnum("precision", p.precision, precisionFromString);
    const QJsonObject in = o.value(QStringLiteral("input")).toObject();
    const QString kind = in.value(QStringLiteral("kind")).toString();
    s.input.kind = inputKindFromString(kind);
    s.input.sentence = in.value(QStringLiteral("sentence")).toInt(0);
    s.input.text = in.value(QStringLiteral("text")).toString();
    s.input.weights = weightsKindFromString(in.value(QStringLiteral("weights")).toString());
    if (o.contains(QStringLiteral("insights"))) {
        // The tab's state: what is missing or out of range keeps the tab's default.
        const QJsonObject ins = o.value(QStringLiteral("insights")).toObject();
        InsightsState st;
        if (auto page =
                insightPageFromString(ins.value(QStringLiteral("page")).toString().toStdString()))
            st.page = *page;
        const InsightSettings d;
        st.settings.delta =
            std::clamp(ins.value(QStringLiteral("delta")).toInt(d.delta), 1, 1 << 20);
        st.settings.kernel =
            std::clamp(ins.value(QStringLiteral("kernel")).toInt(d.kernel), 2, 1024);
        st.settings.depth.layers =
            std::clamp(ins.value(QStringLiteral("layers")).toInt(d.depth.layers), 1, 32);
        st.settings.depth.residual = ins.value(QStringLiteral("residual")).toBool(d.depth.residual);
        if (auto n = depthNormFromString(
                ins.value(QStringLiteral("depth_norm")).toString().toStdString()))
            st.settings.depth.norm = *n;
        st.settings.depth.mlp = ins.value(QStringLiteral("mlp")).toBool(d.depth.mlp);
        s.insights = st;
    }
    if (!error.isEmpty())
        return Error{error.toStdString()};

    // What a newer version wrote and this one cannot use: named, so the caller can say so.
    // The keys this version knows are the ones it writes.
    static const QJsonObject known = toJson(Session{{}, {}, InsightsState{}});
    static const QJsonObject knownInput = known.value(QStringLiteral("input")).toObject();
    QStringList unknown;
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!known.contains(it.key()))
            unknown << QStringLiteral("\"%1\"").arg(it.key());
    for (auto it = in.begin(); it != in.end(); ++it)
        if (!knownInput.contains(it.key()))
            unknown << QStringLiteral("\"input.%1\"").arg(it.key());
    if (in.contains(QStringLiteral("kind")) && toString(s.input.kind) != kind)
        unknown << QStringLiteral("input kind \"%1\" (read as \"%2\")")
                       .arg(kind, toString(s.input.kind));
    // Older builds let the valid length run past the sequence (the computation then refused
    // it); the panel's box ends at the sequence's length now, and such a value is read as it.
    // (In 64 bits: n is not checked yet, and n + 2 may not fit an int.)
    QString adjusted;
    const qint64 seqLen = qint64{p.n} + (p.cls ? 1 : 0) + (p.sep ? 1 : 0); // Params::seqLen
    if (p.validLen > seqLen) {
        adjusted = QStringLiteral("valid_len %1 is past the sequence length %2 ([CLS]/[SEP] "
                                  "included): read as %2")
                       .arg(p.validLen)
                       .arg(seqLen);
        p.validLen = static_cast<int>(seqLen);
    }
    if (ignored) {
        ignored->clear();
        if (version > kFormatVersion)
            *ignored = QStringLiteral("session format %1 is newer than this build's (%2)")
                           .arg(version)
                           .arg(kFormatVersion);
        if (!unknown.isEmpty())
            *ignored += (ignored->isEmpty() ? QString() : QStringLiteral("; ")) +
                        QStringLiteral("ignored: ") + unknown.join(QStringLiteral(", "));
        if (!adjusted.isEmpty())
            *ignored += (ignored->isEmpty() ? QString() : QStringLiteral("; ")) + adjusted;
    }
    return s;
}

Status saveSession(const Session& s, const QString& path) {
    return writeAtomically(path, QJsonDocument(toJson(s)).toJson(QJsonDocument::Indented));
}

Expected<Session> loadSession(const QString& path, QString* ignored) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return Error{QStringLiteral("cannot read %1: %2").arg(path, f.errorString()).toStdString()};
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        return Error{QStringLiteral("%1 is not a JSON session: %2")
                         .arg(path, err.errorString())
                         .toStdString()};
    return sessionFromJson(doc.object(), ignored);
}

} // namespace pe
