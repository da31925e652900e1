// SPDX-License-Identifier: MIT
#include "help.h"

#include <QApplication>
#include <QCheckBox>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <Eigen/Core>

namespace pe {

namespace {
const QString kD2l = QStringLiteral(
    QT_TRANSLATE_NOOP("pe::SchemeHelp", "<i>Dive into Deep Learning</i>, “Self-Attention and "
                                        "Positional Encoding” (and its exercises)"));
const QString kShawArticle = QStringLiteral(QT_TRANSLATE_NOOP(
    "pe::SchemeHelp", "“基于相对位置编码的自注意力机制” (self-attention with relative position "
                      "representations, explained; 拉格朗月, 2021)"));
const QString kSurvey = QStringLiteral(
    "“Exploring Classic Position Embeddings in Attention-based Models” (Allen Liang)");
const QString kUrpeArticle = QStringLiteral(QT_TRANSLATE_NOOP(
    "pe::SchemeHelp",
    "“相对位置编码Transformer的一个理论缺陷与对策” (a theoretical weakness of relative-position "
    "Transformers, and a remedy; Su Jianlin, 2022)"));
} // namespace

SchemeHelp schemeHelp(Scheme s) {
    switch (s) {
    case Scheme::None:
        return {QStringLiteral(QT_TRANSLATE_NOOP("pe::SchemeHelp", "No position information")),
                QStringLiteral("S<sub>ij</sub> = q<sub>i</sub>·k<sub>j</sub> / √d<sub>h</sub>"),
                QStringLiteral(
                    QT_TRANSLATE_NOOP("pe::SchemeHelp", "the baseline of every paper below")),
                QStringLiteral(QT_TRANSLATE_NOOP(
                    "pe::SchemeHelp",
                    "Attention with identical tokens: every row is uniform, the layer "
                    "cannot tell positions apart (only a causal mask can).")),
                kD2l};
    case Scheme::Sinusoidal:
        return {QStringLiteral(QT_TRANSLATE_NOOP("pe::SchemeHelp", "Sinusoidal encoding")),
                QStringLiteral("X = E + P, P<sub>p,2m</sub> = sin(p·ω<sub>m</sub>), "
                               "P<sub>p,2m+1</sub> = cos(p·ω<sub>m</sub>), ω<sub>m</sub> = "
                               "base<sup>−2m/d</sup>"),
                QStringLiteral("Vaswani et al., <i>Attention Is All You Need</i>, 2017"),
                QStringLiteral(QT_TRANSLATE_NOOP(
                    "pe::SchemeHelp",
                    "Encoding tab: columns of P oscillate more slowly to the right, like "
                    "the bits of a binary counter; P·Pᵀ depends only on i − j. Logit terms "
                    "tab: the logits split into e·e + e·p + p·e + p·p; with identity weights "
                    "p·p depends only on i − j too.")),
                kD2l};
    case Scheme::Learned:
        return {QStringLiteral(QT_TRANSLATE_NOOP("pe::SchemeHelp", "Learned absolute positions")),
                QStringLiteral("X = E + P[0:n], P a trained table of P<sub>max</sub> rows"),
                QStringLiteral("GPT-2 (Radford et al., 2019); BERT (Devlin et al., 2019)"),
                QStringLiteral(QT_TRANSLATE_NOOP(
                    "pe::SchemeHelp",
                    "Seeded, the table is noise; train one in the Lab tab and open it "
                    "to see structure. It has no rows past P<sub>max</sub>. Logit terms tab: "
                    "the logits split into content and position terms, e·e + e·p + p·e + "
                    "p·p.")),
                kSurvey};
    case Scheme::Shaw:
        return {QStringLiteral(QT_TRANSLATE_NOOP("pe::SchemeHelp",
                                                 "Relative position representations (Shaw)")),
                QStringLiteral("S<sub>ij</sub> = (q<sub>i</sub>·k<sub>j</sub> + "
                               "q<sub>i</sub>·a<sup>K</sup><sub>r(i,j)</sub>) / √d<sub>h</sub>, "
                               "o<sub>i</sub> = Σ<sub>j</sub> A<sub>ij</sub>(v<sub>j</sub> + "
                               "a<sup>V</sup><sub>r(i,j)</sub>), r = clip(j − i, −k, k) + k"),
                QStringLiteral("Shaw, Uszkoreit, Vaswani, <i>Self-Attention with Relative "
                               "Position Representations</i>, NAACL 2018"),
                QStringLiteral(QT_TRANSLATE_NOOP(
                    "pe::SchemeHelp",
                    "Relative tab: the clipped index is constant beyond ±k; the "
                    "stepper shows the value term, which tells identical tokens apart.")),
                kShawArticle};
    case Scheme::TransformerXL:
        return {
            QStringLiteral(
                QT_TRANSLATE_NOOP("pe::SchemeHelp", "Transformer-XL relative attention")),
            QStringLiteral("S<sub>ij</sub> = (q<sub>i</sub>·k<sub>j</sub> + u·k<sub>j</sub> + "
                           "(q<sub>i</sub> + v)·R<sub>i−j</sub>W<sub>r</sub>) / √d<sub>h</sub>"),
            QStringLiteral("Dai et al., <i>Transformer-XL</i>, ACL 2019"),
            QStringLiteral(QT_TRANSLATE_NOOP(
                "pe::SchemeHelp",
                "Logit terms tab: (a)+(c) content, (b)+(d) position; the position "
                "term is constant along each diagonal.")),
            kSurvey};
    case Scheme::T5:
        return {
            QStringLiteral(QT_TRANSLATE_NOOP("pe::SchemeHelp", "T5 relative attention bias")),
            QStringLiteral("S<sub>ij</sub> = q<sub>i</sub>·k<sub>j</sub> + "
                           "b<sub>h</sub>[bucket(j − i)] (no 1/√d<sub>h</sub>)"),
            QStringLiteral("Raffel et al., <i>Exploring the Limits of Transfer Learning</i> "
                           "(T5), JMLR 2020"),
            QStringLiteral(QT_TRANSLATE_NOOP(
                "pe::SchemeHelp", "Relative tab: exact buckets near the diagonal, logarithmic ones "
                                  "further out; one learned scalar per bucket and head.")),
            kSurvey};
    case Scheme::DeBERTa:
        return {
            QStringLiteral(QT_TRANSLATE_NOOP("pe::SchemeHelp", "DeBERTa disentangled attention")),
            QStringLiteral("S<sub>ij</sub> = (q<sub>i</sub>·k<sub>j</sub> + "
                           "q<sub>i</sub>·K<sup>r</sup><sub>δ(i,j)</sub> + "
                           "k<sub>j</sub>·Q<sup>r</sup><sub>δ(i,j)</sub>) / "
                           "√(d<sub>h</sub>(1 + t))"),
            QStringLiteral("He et al., <i>DeBERTa</i>, ICLR 2021"),
            QStringLiteral(QT_TRANSLATE_NOOP(
                "pe::SchemeHelp", "Logit terms tab: c2c, c2p and p2c side by side; DeBERTa-v3 (a "
                                  "preset) uses log buckets.")),
            kSurvey};
    case Scheme::RoPE:
        return {
            QStringLiteral(QT_TRANSLATE_NOOP("pe::SchemeHelp", "Rotary position embedding (RoPE)")),
            QStringLiteral("q<sub>m</sub>, k<sub>n</sub> rotated by angles m·θ<sub>j</sub>, "
                           "n·θ<sub>j</sub>: q<sub>m</sub>·k<sub>n</sub> depends on m − n only"),
            QStringLiteral("Su et al., <i>RoFormer</i>, 2021"),
            QStringLiteral(QT_TRANSLATE_NOOP(
                "pe::SchemeHelp",
                "Attention with identical tokens: a Toeplitz pattern; Insights → "
                "distance shows the long-term decay. Stretch a model with pi / ntk.")),
            kSurvey};
    case Scheme::ALiBi:
        return {
            QStringLiteral(
                QT_TRANSLATE_NOOP("pe::SchemeHelp", "ALiBi: attention with linear biases")),
            QStringLiteral("S<sub>ij</sub> = q<sub>i</sub>·k<sub>j</sub> / √d<sub>h</sub> − "
                           "m<sub>h</sub>·|i − j| (causal: m<sub>h</sub>·(i − j))"),
            QStringLiteral("Press, Smith, Lewis, <i>Train Short, Test Long</i>, ICLR 2022"),
            QStringLiteral(QT_TRANSLATE_NOOP(
                "pe::SchemeHelp", "Relative tab: one slope per head, geometric in h; with identity "
                                  "projections and identical tokens the maps are the bias alone.")),
            kSurvey};
    case Scheme::URPE:
        return {QStringLiteral(QT_TRANSLATE_NOOP("pe::SchemeHelp",
                                                 "URPE: universal relative position encoding")),
                QStringLiteral("O = (softmax(S) ⊙ C)·V, C<sub>h</sub>[i, j] = "
                               "c<sub>h</sub>[j − i + n − 1]"),
                QStringLiteral("Luo et al., <i>Your Transformer May Not be as Powerful as You "
                               "Expect</i>, NeurIPS 2022"),
                QStringLiteral(QT_TRANSLATE_NOOP(
                    "pe::SchemeHelp",
                    "Stepper, probe stage: with identical tokens plain relative "
                    "attention gives every position the same output; URPE does not.")),
                kUrpeArticle};
    case Scheme::Mlp:
        return {
            QStringLiteral(QT_TRANSLATE_NOOP("pe::SchemeHelp",
                                             "mlp: a learnable encoding of Fourier features")),
            QStringLiteral("X = E + P, P<sub>i</sub> = W<sub>2</sub>·GELU(W<sub>1</sub>·φ(i) + "
                           "b<sub>1</sub>) + b<sub>2</sub>, φ(i) = sin/cos(i·base<sup>−k/F</sup>)"),
            QStringLiteral(QT_TRANSLATE_NOOP(
                "pe::SchemeHelp", "the d2l chapter's exercise 2: a learnable positional encoding")),
            QStringLiteral(QT_TRANSLATE_NOOP(
                "pe::SchemeHelp",
                "Encoding tab: smooth in i and defined at every position, unlike a "
                "learned table; compare them in the Lab past the training length.")),
            kD2l};
    }
    return {};
}

QString schemeHelpHtml(Scheme s) {
    const SchemeHelp h = schemeHelp(s);
    // The texts marked QT_TRANSLATE_NOOP above, in the interface language (formulas and most
    // paper references are the same in every language and are not marked).
    const auto tr = [](const QString& text) {
        return QCoreApplication::translate("pe::SchemeHelp", text.toUtf8().constData());
    };
    return QCoreApplication::translate(
               "pe::SchemeHelp", "<h3>%1</h3><p><b>Formula:</b> %2</p><p><b>Paper:</b> %3</p>"
                                 "<p><b>What to look at:</b> %4</p><p><b>Explained in:</b> %5</p>"
                                 "<p>Every convention: docs/encodings.md (installed under "
                                 "/usr/share/doc/pe-explorer).</p>")
        .arg(tr(h.name), h.formula, tr(h.paper), tr(h.lookAt), tr(h.article));
}

QString aboutHtml() {
    QString libs = QStringLiteral("Qt %1, QCustomPlot 2.1, Eigen %2.%3.%4, OpenBLAS, Highway, "
                                  "nlohmann-json, CLI11")
                       .arg(QString::fromLatin1(qVersion()))
                       .arg(EIGEN_WORLD_VERSION)
                       .arg(EIGEN_MAJOR_VERSION)
                       .arg(EIGEN_MINOR_VERSION);
#ifdef PE_HAVE_LAB
    libs += QStringLiteral(", libtorch (the learning lab)");
#endif
    return QCoreApplication::translate("pe::SchemeHelp",
                                       "<h3>pe-explorer %1</h3><p>Explore positional encodings "
                                       "and self-attention.</p><p>Licence: MIT (see LICENSE).</p>"
                                       "<p>Built with %2.</p>")
        .arg(QApplication::applicationVersion(), libs);
}

const std::vector<TourPage>& tourPages() {
    // English here; TourDialog shows them translated (QT_TRANSLATE_NOOP marks them for lupdate).
    static const std::vector<TourPage> pages{
        {QStringLiteral(QT_TRANSLATE_NOOP("pe::TourDialog", "Encoding")),
         QStringLiteral(QT_TRANSLATE_NOOP(
             "pe::TourDialog",
             "The position matrix P the scheme adds to the tokens, its similarity "
             "P·Pᵀ, and chosen columns against position. Schemes without a P show "
             "their own tables here."))},
        {QStringLiteral(QT_TRANSLATE_NOOP("pe::TourDialog", "Relative")),
         QStringLiteral(QT_TRANSLATE_NOOP(
             "pe::TourDialog",
             "The relative index or bucket matrix and the per-head bias: where the "
             "scheme reads j − i."))},
        {QStringLiteral(QT_TRANSLATE_NOOP("pe::TourDialog", "Logit terms")),
         QStringLiteral(QT_TRANSLATE_NOOP(
             "pe::TourDialog", "The logits split into their content and position terms."))},
        {QStringLiteral(QT_TRANSLATE_NOOP("pe::TourDialog", "Attention")),
         QStringLiteral(QT_TRANSLATE_NOOP(
             "pe::TourDialog",
             "The attention weights of every head; the line above the maps names the "
             "weights in use. Pick a head and a query row at the top right."))},
        {QStringLiteral(QT_TRANSLATE_NOOP("pe::TourDialog", "Compare")),
         QStringLiteral(QT_TRANSLATE_NOOP(
             "pe::TourDialog",
             "Two schemes (or a gallery) on the same input, and their difference."))},
        {QStringLiteral(QT_TRANSLATE_NOOP("pe::TourDialog", "Stepper")),
         QStringLiteral(QT_TRANSLATE_NOOP(
             "pe::TourDialog",
             "One layer stage by stage, from tokens to output, with the probe that "
             "asks whether identical tokens can be told apart."))},
        {QStringLiteral(QT_TRANSLATE_NOOP("pe::TourDialog", "Lab")),
         QStringLiteral(QT_TRANSLATE_NOOP(
             "pe::TourDialog",
             "Train a small model with a scheme on a toy task and test it on longer "
             "sequences than it saw; open the trained model in every view."))},
        {QStringLiteral(QT_TRANSLATE_NOOP("pe::TourDialog", "Insights")),
         QStringLiteral(QT_TRANSLATE_NOOP(
             "pe::TourDialog", "Why the schemes work, one argument of the d2l chapter per page: "
                               "sinusoids as binary digits, the fixed map that shifts P, what "
                               "attention costs, attention against distance, stacked layers."))},
    };
    return pages;
}

TourDialog::TourDialog(QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Tour of the tabs"));
    auto* v = new QVBoxLayout(this);
    m_title = new QLabel;
    m_text = new QLabel;
    m_text->setWordWrap(true);
    m_text->setMinimumWidth(380);
    m_counter = new QLabel;
    v->addWidget(m_title);
    v->addWidget(m_text, 1);
    m_dontShow = new QCheckBox(tr("Don't show this tour at start again"));
    m_dontShow->setChecked(true);
    v->addWidget(m_dontShow);
    auto* row = new QHBoxLayout;
    row->addWidget(m_counter);
    row->addStretch();
    m_back = new QPushButton(tr("&Back"));
    m_next = new QPushButton(tr("&Next"));
    auto* close = new QPushButton(tr("&Close"));
    row->addWidget(m_back);
    row->addWidget(m_next);
    row->addWidget(close);
    v->addLayout(row);
    connect(m_back, &QPushButton::clicked, this, [this] { setPage(m_page - 1); });
    connect(m_next, &QPushButton::clicked, this, [this] {
        if (m_page + 1 < static_cast<int>(tourPages().size()))
            setPage(m_page + 1);
        else
            accept();
    });
    connect(close, &QPushButton::clicked, this, &QDialog::accept);
    setPage(0);
}

void TourDialog::setPage(int page) {
    const int n = static_cast<int>(tourPages().size());
    m_page = std::clamp(page, 0, n - 1);
    const TourPage& p = tourPages()[static_cast<std::size_t>(m_page)];
    m_title->setText(QStringLiteral("<h3>%1</h3>").arg(tr(p.tab.toUtf8().constData())));
    m_text->setText(tr(p.text.toUtf8().constData()));
    m_counter->setText(tr("%1 of %2").arg(m_page + 1).arg(n));
    m_back->setEnabled(m_page > 0);
    m_next->setText(m_page + 1 < n ? tr("&Next") : tr("&Done"));
    Q_EMIT pageShown(m_page);
}

bool TourDialog::dontShowAgain() const {
    return m_dontShow->isChecked();
}

} // namespace pe
