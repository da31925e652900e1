// SPDX-License-Identifier: MIT
#include "params_panel.h"
#include "hideable_form.h"

#include "seed_spin_box.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace pe {

namespace {

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

template <typename Enum> QComboBox* enumCombo(const std::vector<Enum>& values) {
    auto* box = new QComboBox;
    for (Enum v : values)
        box->addItem(qs(toString(v)), static_cast<int>(v));
    return box;
}

template <typename Enum> Enum enumOf(const QComboBox* box) {
    return static_cast<Enum>(box->currentData().toInt());
}

template <typename Enum> void setEnum(QComboBox* box, Enum v) {
    box->setCurrentIndex(std::max(0, box->findData(static_cast<int>(v))));
}

/** The scheme as the options group's title names it. */
QString schemeTitle(Scheme s) {
    switch (s) {
    case Scheme::None:
        return QObject::tr("No position");
    case Scheme::Sinusoidal:
        return QObject::tr("Sinusoidal");
    case Scheme::Learned:
        return QObject::tr("Learned table");
    case Scheme::Shaw:
        return QObject::tr("Shaw");
    case Scheme::TransformerXL:
        return QObject::tr("Transformer-XL");
    case Scheme::T5:
        return QObject::tr("T5");
    case Scheme::DeBERTa:
        return QObject::tr("DeBERTa");
    case Scheme::RoPE:
        return QObject::tr("RoPE");
    case Scheme::ALiBi:
        return QObject::tr("ALiBi");
    case Scheme::URPE:
        return QObject::tr("URPE");
    case Scheme::Mlp:
        return QObject::tr("MLP encoding");
    }
    return {};
}

QSpinBox* spin(int lo, int hi, const QString& tip) {
    auto* s = new QSpinBox;
    s->setRange(lo, hi);
    s->setToolTip(tip);
    s->setKeyboardTracking(false);
    return s;
}

} // namespace

int sliderToLength(int s) {
    return std::clamp(static_cast<int>(std::lround(std::exp2(s / 100.0))), 1, 16384);
}

int lengthToSlider(int n) {
    return static_cast<int>(std::lround(100.0 * std::log2(std::max(n, 1))));
}

ParamsPanel::ParamsPanel(QWidget* parent)
    : QWidget(parent)
    , m_coalesce(new QTimer(this)) {
    m_coalesce->setSingleShot(true);
    m_coalesce->setInterval(kCoalesceMs);
    connect(m_coalesce, &QTimer::timeout, this, [this] {
        if (!m_trailing)
            return;
        m_trailing = false;
        emitNow();
        m_coalesce->start();
    });
    build();
    Params defaults;
    defaults.scheme = Scheme::Sinusoidal;
    defaults.n = 64;
    defaults.d = 128;
    defaults.heads = 4;
    setValues(defaults, InputChoice{});
}

void ParamsPanel::build() {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);

    // Scheme and sizes
    auto* sizes = new QGroupBox(tr("Scheme and sizes"));
    auto* f1 = new QFormLayout(sizes);
    m_scheme = enumCombo(allSchemes());
    m_scheme->setToolTip(
        tr("Position scheme. Absolute: X = E + P (sinusoidal, learned, mlp: a small network of "
           "Fourier features of p). Relative: Shaw "
           "(a_ij = q_i·(k_j + w^K_clip(j−i,k))), Transformer-XL, T5 (bias b[bucket(j−i)]), "
           "DeBERTa (c2c + c2p + p2c), RoPE (rotate q, k by position), ALiBi (−m_h |i−j|), URPE "
           "(softmax(S) ⊙ C[j−i])."));
    f1->addRow(tr("&Scheme"), m_scheme);
    m_nSlider = new QSlider(Qt::Horizontal);
    m_nSlider->setRange(0, lengthToSlider(16384));
    m_nSlider->setToolTip(tr("Sequence length n (logarithmic: n = 2^(s/100)); 1 … 16384 input "
                             "tokens, special tokens come on top"));
    m_n = spin(1, 16384, tr("Number of input tokens n (1 … 16384); [CLS]/[SEP] are added on top"));
    auto* nRow = new QHBoxLayout;
    nRow->addWidget(m_nSlider, 1);
    nRow->addWidget(m_n);
    auto* nLabel = new QLabel(tr("&Length n"));
    nLabel->setBuddy(m_n); // a row holding a layout gets no buddy by itself
    f1->addRow(nLabel, nRow);
    m_d = spin(1, 4096, tr("Model width d; Q = X W_q with W_q [d, d]; head width d_h = d / heads"));
    f1->addRow(tr("Width &d"), m_d);
    m_heads = spin(1, 64, tr("Number of heads h; d must be a multiple of h (d_h = d / h)"));
    f1->addRow(tr("&Heads"), m_heads);
    outer->addWidget(sizes);

    // Scheme options
    // Scheme options: only the current scheme's rows are shown (updateEnabled).
    auto* opts = new QGroupBox(tr("Scheme options"));
    // Not a QFormLayout: its rows are hidden and shown (see HideableForm for Qt 6.4's bug).
    auto* f2 = new HideableForm(opts);
    m_optionsBox = opts;
    m_options = f2;
    m_noOptions = new QLabel(tr("No options: no position information at all."));
    m_noOptions->setWordWrap(true);
    f2->addRow(m_noOptions);
    m_base = new QDoubleSpinBox;
    m_base->setRange(1.1, 1e9); // the frequencies need a base above 1 (one decimal shown)
    m_base->setDecimals(1);
    m_base->setKeyboardTracking(false);
    m_base->setToolTip(tr("Base b of the frequencies ω_m = b^(−2m/d) (sinusoidal), "
                          "θ_m = b^(−2m/d_rot) (RoPE) or ω_k = b^(−k/F) (mlp features)"));
    f2->addRow(tr("&Base"), m_base);
    m_layout = enumCombo(allValues<SinLayout>());
    m_layout->setToolTip(tr("Sinusoid layout: interleaved PE[p,2m] = sin(pω_m), PE[p,2m+1] = "
                            "cos(pω_m); concat [sin | cos]; t2t ω_m = exp(−m ln(b)/(d/2 − 1))"));
    f2->addRow(tr("Layout"), m_layout);
    m_clip = spin(1, 4096,
                  tr("Clip distance k: Shaw index clip(j − i, −k, k) + k ∈ [0, 2k]; "
                     "DeBERTa v1 span k"));
    f2->addRow(tr("Clip &k"), m_clip);
    m_ropeConv = enumCombo(allValues<RopeConvention>());
    m_ropeConv->setToolTip(tr("RoPE pairs: interleaved (2m, 2m+1) as in the paper, or half "
                              "(m, m + d_rot/2) as in GPT-NeoX/LLaMA"));
    f2->addRow(tr("RoPE pairs"), m_ropeConv);
    m_ropeDims = spin(0, 4096,
                      tr("Rotated features per head d_rot (partial rotary); 0 = all d_h; "
                         "features [d_rot, d_h) pass through"));
    m_ropeDims->setSpecialValueText(tr("all"));
    f2->addRow(tr("RoPE dims"), m_ropeDims);
    m_ropeScaling = enumCombo(allValues<RopeScaling>());
    m_ropeScaling->setToolTip(
        tr("RoPE context stretching by s: none; pi (position interpolation, Chen et al. 2023): "
           "angle = (p/s)·θ_m; ntk (NTK-aware base): θ'_m = b'^(−2m/d_rot) with "
           "b' = b·s^(d_rot/(d_rot−2)), needs d_rot ≥ 4"));
    f2->addRow(tr("RoPE stretch"), m_ropeScaling);
    m_ropeScale = new QDoubleSpinBox;
    m_ropeScale->setRange(0.01, 1e6);
    m_ropeScale->setDecimals(3);
    m_ropeScale->setKeyboardTracking(false);
    m_ropeScale->setToolTip(tr("Stretch s > 0 of pi / ntk, e.g. L'/L to run a model trained at "
                               "length L at L'; s = 1 changes nothing"));
    f2->addRow(tr("RoPE stretch s"), m_ropeScale);
    m_urpeBias = enumCombo(allValues<UrpeBias>());
    m_urpeBias->setToolTip(tr("URPE base bias: none, or a T5 bucket bias added to the logits "
                              "before softmax(S) ⊙ C"));
    f2->addRow(tr("URPE bias"), m_urpeBias);
    m_buckets = spin(2, 1024,
                     tr("T5 num_buckets: half exact (|r| < B/4 per direction), half "
                        "logarithmic up to max_distance"));
    f2->addRow(tr("T5 buckets"), m_buckets);
    m_maxDistance = spin(1, 1 << 20, tr("T5 max_distance: |j − i| ≥ this shares the last bucket"));
    f2->addRow(tr("T5 max distance"), m_maxDistance);
    m_unidirectional = new QCheckBox(tr("unidirectional"));
    m_unidirectional->setToolTip(tr("T5 decoder buckets: only j ≤ i is distinguished "
                                    "(bidirectional = false)"));
    f2->addRow(QString(), m_unidirectional);
    m_alibiMode = enumCombo(allValues<AlibiMode>());
    m_alibiMode->setToolTip(tr("ALiBi bias: symmetric −m_h |i − j|, or the paper's causal "
                               "−m_h (i − j); slopes m_h = 2^(−8h/H)"));
    f2->addRow(tr("ALiBi"), m_alibiMode);
    m_c2p = new QCheckBox(tr("c2p"));
    m_c2p->setToolTip(tr("DeBERTa content-to-position term q^c_i · k^r_δ(i,j)"));
    m_p2c = new QCheckBox(tr("p2c"));
    m_p2c->setToolTip(tr("DeBERTa position-to-content term k^c_j · q^r_δ(j,i); the logits are "
                         "scaled by 1/√(d_h (1 + terms))"));
    m_debTerms = new QHBoxLayout;
    m_debTerms->addWidget(m_c2p);
    m_debTerms->addWidget(m_p2c);
    f2->addRow(tr("DeBERTa terms"), m_debTerms);
    m_p2cConv = enumCombo(allValues<P2CConvention>());
    m_p2cConv->setToolTip(tr("p2c index: the released code's δ(i, j) or the paper's δ(j, i)"));
    f2->addRow(tr("p2c index"), m_p2cConv);
    m_logBuckets = new QCheckBox(tr("log buckets (v2/v3)"));
    m_logBuckets->setToolTip(tr("DeBERTa v2/v3 log buckets: span = position_buckets (a 2·span × d "
                                "relative table), exact for |i − j| ≤ position_buckets / 2, "
                                "logarithmic up to max_relative_positions"));
    f2->addRow(QString(), m_logBuckets);
    m_debBuckets = spin(2, 4096, tr("DeBERTa position_buckets (v2/v3)"));
    f2->addRow(tr("DeBERTa buckets"), m_debBuckets);
    m_debMaxPos = spin(1, 1 << 20, tr("DeBERTa max_relative_positions (v2/v3)"));
    f2->addRow(tr("DeBERTa max pos"), m_debMaxPos);
    m_clampLen = spin(0, 1 << 20,
                      tr("Transformer-XL clamp_len: relative distances beyond are "
                         "clamped; 0 = off"));
    m_clampLen->setSpecialValueText(tr("off"));
    f2->addRow(tr("TXL clamp"), m_clampLen);
    m_learnedRows = spin(1, 1 << 20,
                         tr("Rows P_max of the generated learned table (GPT-2: "
                            "n_ctx = 1024); n must not exceed it"));
    f2->addRow(tr("Learned rows"), m_learnedRows);
    m_mlpFeatures = spin(1, kMaxMlpFeatures,
                         tr("mlp encoding: F Fourier frequencies, φ(p) = [sin(p·ω_k), cos(p·ω_k)] "
                            "for k < F, ω_k = b^(−k/F); P = GELU(φ·W1 + b1)·W2 + b2 with "
                            "W1 [2F, H], W2 [H, d]"));
    f2->addRow(tr("MLP features F"), m_mlpFeatures);
    m_mlpHidden = spin(1, kMaxMlpHidden,
                       tr("mlp encoding: hidden width H of P = GELU(φ·W1 + b1)·W2 + b2 "
                          "(exact GELU 0.5·x·(1 + erf(x/√2))); defined at every position"));
    f2->addRow(tr("MLP hidden H"), m_mlpHidden);
    outer->addWidget(opts);

    // Attention
    auto* att = new QGroupBox(tr("Attention"));
    auto* f3 = new QFormLayout(att);
    m_norm = enumCombo(allNormalisers());
    m_norm->setToolTip(tr("Normaliser N(S) of each row: softmax exp(s)/Σexp; exp (unnormalised); "
                          "l2 s/‖s‖; relu² relu(s)²/n; relu² visible relu(s)²/#visible"));
    f3->addRow(tr("&Normaliser"), m_norm);
    m_mask = enumCombo(allValues<MaskKind>());
    m_mask->setToolTip(tr("Mask: none, or causal (key j > query i gets −∞ before the normaliser)"));
    f3->addRow(tr("&Mask"), m_mask);
    m_validLen = spin(-1, 16386,
                      tr("Valid length L: keys at positions ≥ L are padding (masked); "
                         "counts [CLS]/[SEP]; −1 = all valid"));
    m_validLen->setSpecialValueText(tr("all"));
    f3->addRow(tr("Valid length"), m_validLen);
    m_cls = new QCheckBox(tr("[CLS]"));
    m_cls->setToolTip(tr("Prepend [CLS] at position 0; input tokens move to 1 … n"));
    m_sep = new QCheckBox(tr("[SEP]"));
    m_sep->setToolTip(tr("Append [SEP] as the last position"));
    auto* spRow = new QHBoxLayout;
    spRow->addWidget(m_cls);
    spRow->addWidget(m_sep);
    f3->addRow(tr("Special tokens"), spRow);
    m_seed = new SeedSpinBox;
    m_seed->setToolTip(tr("Seed of every generated weight and embedding (xoshiro256**, one stream "
                          "per tensor name), 0 … 2⁶⁴−1: the same seed gives the same numbers "
                          "everywhere"));
    f3->addRow(tr("S&eed"), m_seed);
    m_weightsKind = new QComboBox;
    m_weightsKind->addItem(tr("random"), static_cast<int>(WeightsKind::Random));
    m_weightsKind->addItem(tr("identity projections"), static_cast<int>(WeightsKind::Identity));
    m_weightsKind->addItem(tr("trained"), static_cast<int>(WeightsKind::Trained));
    m_weightsKind->setToolTip(
        tr("Attention weights W_q, W_k, W_v, W_o: seeded random; identity (W = I, so "
           "Q = K = V = X and the maps show the scheme's own structure, position tables stay "
           "seeded); or a trained lab model."));
    setTrainedModel(nullptr, QString()); // greyed until the lab gives a model
    f3->addRow(tr("&Weights"), m_weightsKind);
    m_precision = enumCombo(allValues<Precision>());
    m_precision->setToolTip(tr("Arithmetic of the forward pass: float32 or float64"));
    f3->addRow(tr("Precision"), m_precision);
    // The boxes below the scheme's options share one opaque widget: a scheme switch changes the
    // options' height and moves them, and Qt moves an opaque widget by copying its pixels
    // (QWidgetPrivate::moveRect) where nothing has been marked for repainting yet, instead of
    // repainting it (see also updateEnabled: one layout pass per switch). As two boxes of their
    // own both were repainted whole on every switch: Fusion's group box frames, labels and
    // controls, most of the panel's 1.9 ms of GUI thread per switch, while the computation the
    // switch starts needs both cores.
    auto* below = new QWidget;
    below->setAutoFillBackground(true);
    auto* belowLayout = new QVBoxLayout(below);
    belowLayout->setContentsMargins(0, 0, 0, 0);
    belowLayout->addWidget(att);

    // Input
    auto* inp = new QGroupBox(tr("Input"));
    auto* f4 = new QFormLayout(inp);
    m_inputKind = new QComboBox;
    m_inputKind->addItem(tr("sample sentence"), static_cast<int>(InputKind::Sentence));
    m_inputKind->addItem(tr("typed text"), static_cast<int>(InputKind::Text));
    m_inputKind->addItem(tr("n identical tokens"), static_cast<int>(InputKind::Identical));
    m_inputKind->addItem(tr("all zeros"), static_cast<int>(InputKind::Zeros));
    m_inputKind->setToolTip(
        tr("Input tokens; the token list is repeated or cut to exactly n "
           "tokens. Embeddings E come from a seeded per-token table. n "
           "identical tokens is the probe of docs/encodings.md §12; all zeros sets E = 0, "
           "so only P and the position terms are left."));
    f4->addRow(tr("&Input"), m_inputKind);
    m_sentence = new QComboBox;
    for (const QString& s : sampleSentenceList())
        m_sentence->addItem(s.left(40) + QStringLiteral("…"));
    // As wide as the panel, not as its longest sentence: the panel fits a small screen.
    m_sentence->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_sentence->setMinimumContentsLength(12);
    m_sentence->setToolTip(tr("Built-in sentence (tokenized into words and punctuation; CJK by "
                              "character)"));
    f4->addRow(tr("Sentence"), m_sentence);
    m_text = new QLineEdit;
    m_text->setPlaceholderText(tr("type a sentence"));
    m_text->setToolTip(tr("Your text, tokenized into words and punctuation (CJK by character)"));
    f4->addRow(tr("Text"), m_text);
    belowLayout->addWidget(inp);
    outer->addWidget(below);
    outer->addStretch(1);

    // Wiring: the slider and the spin box mirror each other; every edit goes through onEdited.
    connect(m_nSlider, &QSlider::valueChanged, this, [this](int s) {
        if (m_updating)
            return;
        const QSignalBlocker b(m_n);
        m_n->setValue(sliderToLength(s));
        onEdited();
    });
    connect(m_n, &QSpinBox::valueChanged, this, [this](int n) {
        if (m_updating)
            return;
        const QSignalBlocker b(m_nSlider);
        m_nSlider->setValue(lengthToSlider(n));
        onEdited();
    });
    for (QSpinBox* s :
         {m_d, m_heads, m_clip, m_ropeDims, m_buckets, m_maxDistance, m_debBuckets, m_debMaxPos,
          m_clampLen, m_learnedRows, m_mlpFeatures, m_mlpHidden, m_validLen})
        connect(s, &QSpinBox::valueChanged, this, &ParamsPanel::onEdited);
    connect(m_seed, &SeedSpinBox::valueChanged, this, &ParamsPanel::onEdited);
    connect(m_base, &QDoubleSpinBox::valueChanged, this, &ParamsPanel::onEdited);
    connect(m_ropeScale, &QDoubleSpinBox::valueChanged, this, &ParamsPanel::onEdited);
    for (QComboBox* c :
         {m_scheme, m_layout, m_ropeConv, m_ropeScaling, m_alibiMode, m_p2cConv, m_urpeBias, m_norm,
          m_mask, m_precision, m_inputKind, m_sentence, m_weightsKind})
        connect(c, &QComboBox::currentIndexChanged, this, &ParamsPanel::onEdited);
    for (QCheckBox* c : {m_unidirectional, m_c2p, m_p2c, m_logBuckets, m_cls, m_sep})
        connect(c, &QCheckBox::toggled, this, &ParamsPanel::onEdited);
    connect(m_text, &QLineEdit::textEdited, this, &ParamsPanel::onEdited);
}

void ParamsPanel::updateEnabled() {
    const Scheme s = enumOf<Scheme>(m_scheme);
    const bool t5 =
        s == Scheme::T5 || (s == Scheme::URPE && enumOf<UrpeBias>(m_urpeBias) == UrpeBias::T5);
    const bool deb = s == Scheme::DeBERTa;
    m_base->setEnabled(s == Scheme::Sinusoidal || s == Scheme::RoPE || s == Scheme::Mlp);
    m_layout->setEnabled(s == Scheme::Sinusoidal);
    m_clip->setEnabled(s == Scheme::Shaw || (deb && !m_logBuckets->isChecked()));
    m_ropeConv->setEnabled(s == Scheme::RoPE);
    m_ropeDims->setEnabled(s == Scheme::RoPE);
    m_ropeScaling->setEnabled(s == Scheme::RoPE);
    m_ropeScale->setEnabled(s == Scheme::RoPE &&
                            enumOf<RopeScaling>(m_ropeScaling) != RopeScaling::None);
    m_buckets->setEnabled(t5);
    m_maxDistance->setEnabled(t5);
    m_unidirectional->setEnabled(t5);
    m_alibiMode->setEnabled(s == Scheme::ALiBi);
    for (QWidget* w : {static_cast<QWidget*>(m_c2p), static_cast<QWidget*>(m_p2c),
                       static_cast<QWidget*>(m_logBuckets)})
        w->setEnabled(deb);
    m_p2cConv->setEnabled(deb && m_p2c->isChecked());
    m_debBuckets->setEnabled(deb && m_logBuckets->isChecked());
    m_debMaxPos->setEnabled(deb && m_logBuckets->isChecked());
    m_clampLen->setEnabled(s == Scheme::TransformerXL);
    m_urpeBias->setEnabled(s == Scheme::URPE);
    m_learnedRows->setEnabled(s == Scheme::Learned);
    m_mlpFeatures->setEnabled(s == Scheme::Mlp);
    m_mlpHidden->setEnabled(s == Scheme::Mlp);

    // Only the current scheme's options are shown; the others keep their values, hidden.
    // Showing a widget lays out every visible ancestor at once (QWidget::setVisible), so the
    // panel was laid out again after each row: the boxes below the options moved in steps, and
    // every step after the first found its old place marked for repainting, so it repainted
    // them whole. The panel's layout now waits until the rows are set, then lays out once.
    QLayout* panelLayout = layout();
    panelLayout->setEnabled(false);
    const bool rope = s == Scheme::RoPE;
    const auto show = [this](QObject* field, bool visible) {
        m_options->setRowVisible(field, visible);
    };
    show(m_noOptions, s == Scheme::None);
    show(m_base, s == Scheme::Sinusoidal || rope || s == Scheme::Mlp);
    show(m_layout, s == Scheme::Sinusoidal);
    show(m_clip, s == Scheme::Shaw || deb);
    for (QWidget* w : {static_cast<QWidget*>(m_ropeConv), static_cast<QWidget*>(m_ropeDims),
                       static_cast<QWidget*>(m_ropeScaling), static_cast<QWidget*>(m_ropeScale)})
        show(w, rope);
    show(m_urpeBias, s == Scheme::URPE);
    for (QWidget* w : {static_cast<QWidget*>(m_buckets), static_cast<QWidget*>(m_maxDistance),
                       static_cast<QWidget*>(m_unidirectional)})
        show(w, s == Scheme::T5 || s == Scheme::URPE); // URPE's only with its T5 bias (greyed)
    show(m_alibiMode, s == Scheme::ALiBi);
    show(m_debTerms, deb);
    for (QWidget* w : {static_cast<QWidget*>(m_p2cConv), static_cast<QWidget*>(m_logBuckets),
                       static_cast<QWidget*>(m_debBuckets), static_cast<QWidget*>(m_debMaxPos)})
        show(w, deb);
    show(m_clampLen, s == Scheme::TransformerXL);
    show(m_learnedRows, s == Scheme::Learned);
    show(m_mlpFeatures, s == Scheme::Mlp);
    show(m_mlpHidden, s == Scheme::Mlp);
    panelLayout->setEnabled(true);
    panelLayout->activate();
    m_optionsBox->setTitle(tr("%1 options").arg(schemeTitle(s)));
    // Shaw's clip distance is DeBERTa v1's span.
    if (auto* clipLabel = qobject_cast<QLabel*>(m_options->labelForField(m_clip));
        clipLabel && clipLabel->text() != (deb ? tr("Span &k") : tr("Clip &k")))
        clipLabel->setText(deb ? tr("Span &k") : tr("Clip &k"));
    const auto kind = static_cast<InputKind>(m_inputKind->currentData().toInt());
    m_sentence->setEnabled(kind == InputKind::Sentence);
    m_text->setEnabled(kind == InputKind::Text);
}

QList<QWidget*> ParamsPanel::schemeOptionControls() const {
    QList<QWidget*> out;
    for (QWidget* w : m_options->fieldWidgets())
        if (w != m_noOptions)
            out << w;
    return out;
}

Params ParamsPanel::params() const {
    Params p;
    p.scheme = enumOf<Scheme>(m_scheme);
    p.n = m_n->value();
    p.d = m_d->value();
    p.heads = m_heads->value();
    p.norm = enumOf<Normaliser>(m_norm);
    p.mask = enumOf<MaskKind>(m_mask);
    p.validLen = m_validLen->value();
    p.clip = m_clip->value();
    p.base = m_base->value();
    p.layout = enumOf<SinLayout>(m_layout);
    p.ropeConvention = enumOf<RopeConvention>(m_ropeConv);
    p.ropeDims = m_ropeDims->value();
    p.ropeScaling = enumOf<RopeScaling>(m_ropeScaling);
    p.ropeScale = m_ropeScale->value();
    p.buckets = m_buckets->value();
    p.maxDistance = m_maxDistance->value();
    p.unidirectional = m_unidirectional->isChecked();
    p.alibiMode = enumOf<AlibiMode>(m_alibiMode);
    p.debertaC2P = m_c2p->isChecked();
    p.debertaP2C = m_p2c->isChecked();
    p.p2cConvention = enumOf<P2CConvention>(m_p2cConv);
    p.debertaLogBuckets = m_logBuckets->isChecked();
    p.debertaBuckets = m_debBuckets->value();
    p.debertaMaxPosition = m_debMaxPos->value();
    p.txlClampLen = m_clampLen->value();
    p.urpeBias = enumOf<UrpeBias>(m_urpeBias);
    p.learnedRows = m_learnedRows->value();
    p.mlpFeatures = m_mlpFeatures->value();
    p.mlpHidden = m_mlpHidden->value();
    p.cls = m_cls->isChecked();
    p.sep = m_sep->isChecked();
    p.seed = m_seed->value();
    p.precision = enumOf<Precision>(m_precision);
    return p;
}

InputChoice ParamsPanel::input() const {
    InputChoice in;
    in.kind = static_cast<InputKind>(m_inputKind->currentData().toInt());
    in.sentence = m_sentence->currentIndex();
    in.text = m_text->text();
    in.weights = static_cast<WeightsKind>(m_weightsKind->currentData().toInt());
    if (in.weights == WeightsKind::Trained) {
        in.trained = m_trained;
        in.trainedName = m_trainedName;
    }
    return in;
}

void ParamsPanel::setTrainedModel(std::shared_ptr<const Weights> weights, const QString& name) {
    m_trained = std::move(weights);
    m_trainedName = name;
    if (auto* model = qobject_cast<QStandardItemModel*>(m_weightsKind->model())) {
        QStandardItem* trained =
            model->item(m_weightsKind->findData(static_cast<int>(WeightsKind::Trained)));
        trained->setEnabled(m_trained != nullptr);
        trained->setToolTip(m_trained ? tr("Trained: %1").arg(name)
                                      : tr("No trained model yet: train one in the Lab tab or "
                                           "load a .safetensors model there."));
    }
}

void ParamsPanel::setValues(const Params& p, const InputChoice& in) {
    m_updating = true;
    const QList<QWidget*> all = findChildren<QWidget*>();
    std::vector<std::unique_ptr<QSignalBlocker>> blockers;
    for (QWidget* w : all)
        blockers.push_back(std::make_unique<QSignalBlocker>(w));
    setEnum(m_scheme, p.scheme);
    m_n->setValue(p.n);
    m_nSlider->setValue(lengthToSlider(p.n));
    m_d->setValue(p.d);
    m_heads->setValue(p.heads);
    setEnum(m_norm, p.norm);
    setEnum(m_mask, p.mask);
    m_clip->setValue(p.clip);
    m_base->setValue(p.base);
    setEnum(m_layout, p.layout);
    setEnum(m_ropeConv, p.ropeConvention);
    m_ropeDims->setValue(p.ropeDims);
    setEnum(m_ropeScaling, p.ropeScaling);
    m_ropeScale->setValue(p.ropeScale);
    m_buckets->setValue(p.buckets);
    m_maxDistance->setValue(p.maxDistance);
    m_unidirectional->setChecked(p.unidirectional);
    setEnum(m_alibiMode, p.alibiMode);
    m_c2p->setChecked(p.debertaC2P);
    m_p2c->setChecked(p.debertaP2C);
    setEnum(m_p2cConv, p.p2cConvention);
    m_logBuckets->setChecked(p.debertaLogBuckets);
    m_debBuckets->setValue(p.debertaBuckets);
    m_debMaxPos->setValue(p.debertaMaxPosition);
    m_clampLen->setValue(p.txlClampLen);
    setEnum(m_urpeBias, p.urpeBias);
    m_learnedRows->setValue(p.learnedRows);
    m_mlpFeatures->setValue(p.mlpFeatures);
    m_mlpHidden->setValue(p.mlpHidden);
    m_cls->setChecked(p.cls);
    m_sep->setChecked(p.sep);
    updateValidLenRange(); // from the n, [CLS] and [SEP] just set; before the value it clamps
    m_validLen->setValue(p.validLen);
    m_seed->setValue(p.seed);
    setEnum(m_precision, p.precision);
    m_inputKind->setCurrentIndex(std::max(0, m_inputKind->findData(static_cast<int>(in.kind))));
    m_sentence->setCurrentIndex(std::clamp(in.sentence, 0, m_sentence->count() - 1));
    m_text->setText(in.text);
    m_weightsKind->setCurrentIndex(
        std::max(0, m_weightsKind->findData(static_cast<int>(in.weights))));
    blockers.clear();
    m_updating = false;
    updateEnabled();
}

// The valid length counts [CLS]/[SEP] (Params::seqLen); a value past the sequence is one the
// computation refuses, so the box ends there and a shorter sequence pulls the value down.
void ParamsPanel::updateValidLenRange() {
    // Only when it changes: setting a spin box's range lays the panel out again.
    if (const int n = params().seqLen(); m_validLen->maximum() != n)
        m_validLen->setMaximum(n);
}

void ParamsPanel::onEdited() {
    if (m_updating)
        return;
    updateValidLenRange();
    updateEnabled();
    // Leading edge: a change goes out at the next event-loop turn (the edits of one turn become
    // one emission); changes inside the following window are coalesced into one at its end.
    if (m_coalesce->isActive()) {
        m_trailing = true;
        return;
    }
    if (m_leadingQueued)
        return;
    m_leadingQueued = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_leadingQueued = false;
            emitNow();
            m_coalesce->start();
        },
        Qt::QueuedConnection);
}

void ParamsPanel::emitNow() {
    Q_EMIT changed(params(), input());
}

} // namespace pe
