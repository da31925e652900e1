// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include "params.h"
#include "sample_input.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QSlider;
class QSpinBox;
class QTimer;

namespace pe {
class HideableForm;
class SeedSpinBox;
} // namespace pe

namespace pe {

/**
 * Every parameter of one computation as controls. The scheme options group shows the options
 * of the chosen scheme only (hidden ones keep their values: params() and sessions carry every
 * scheme's); an option that depends on another one of the same scheme (DeBERTa's log-bucket
 * sizes, RoPE's stretch s) is greyed until that one is set. Every control's tooltip gives the
 * formula. Changes are
 * coalesced (a slider drag emits at most once per 40 ms) and leave as a value: changed().
 */
class ParamsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ParamsPanel(QWidget* parent = nullptr);

    Params params() const;
    /**
     * The trained model that Weights = trained uses (one layer's tensors, from the lab); null
     * greys the choice again (and a chosen "trained" falls back to random).
     */
    void setTrainedModel(std::shared_ptr<const Weights> weights, const QString& name);
    InputChoice input() const;
    /** Shows these values without emitting changed(). */
    void setValues(const Params& p, const InputChoice& in);

    /** Coalescing window for slider drags and typing, in ms: the first change is emitted at the
     *  next event-loop turn, later ones at most once per window (the last values win). */
    static constexpr int kCoalesceMs = 40;

    // For tests and the main window's shortcuts.
    QComboBox* schemeBox() const { return m_scheme; }
    QComboBox* weightsBox() const { return m_weightsKind; }
    QSpinBox* lengthBox() const { return m_n; }
    SeedSpinBox* seedBox() const { return m_seed; }
    QSlider* lengthSlider() const { return m_nSlider; }
    QSpinBox* widthBox() const { return m_d; }
    QSpinBox* validLenBox() const { return m_validLen; }
    QCheckBox* clsBox() const { return m_cls; }
    QCheckBox* sepBox() const { return m_sep; }
    QSpinBox* headsBox() const { return m_heads; }
    QComboBox* ropeScalingBox() const { return m_ropeScaling; }
    QDoubleSpinBox* ropeScaleBox() const { return m_ropeScale; }
    QSpinBox* mlpFeaturesBox() const { return m_mlpFeatures; }
    QSpinBox* mlpHiddenBox() const { return m_mlpHidden; }
    QDoubleSpinBox* baseBox() const { return m_base; }
    QComboBox* layoutBox() const { return m_layout; }
    QSpinBox* clipBox() const { return m_clip; }
    QSpinBox* bucketsBox() const { return m_buckets; }
    QCheckBox* logBucketsBox() const { return m_logBuckets; }
    QComboBox* normaliserBox() const { return m_norm; }
    /** The group of the current scheme's options, titled after it. */
    QGroupBox* optionsGroup() const { return m_optionsBox; }
    /** Every control of the scheme options group, in order (shown or not). */
    QList<QWidget*> schemeOptionControls() const;

Q_SIGNALS:
    void changed(const pe::Params& p, const pe::InputChoice& in);

private:
    void build();
    void updateEnabled();
    void updateValidLenRange();
    void onEdited();
    void emitNow();

    QComboBox* m_scheme;
    QGroupBox* m_optionsBox;
    HideableForm* m_options;
    QHBoxLayout* m_debTerms;
    QLabel* m_noOptions;
    QSlider* m_nSlider;
    QSpinBox* m_n;
    QSpinBox* m_d;
    QSpinBox* m_heads;
    QSpinBox* m_clip;
    QDoubleSpinBox* m_base;
    QComboBox* m_layout;
    QComboBox* m_ropeConv;
    QSpinBox* m_ropeDims;
    QComboBox* m_ropeScaling;
    QDoubleSpinBox* m_ropeScale;
    QSpinBox* m_buckets;
    QSpinBox* m_maxDistance;
    QCheckBox* m_unidirectional;
    QComboBox* m_alibiMode;
    QCheckBox* m_c2p;
    QCheckBox* m_p2c;
    QComboBox* m_p2cConv;
    QCheckBox* m_logBuckets;
    QSpinBox* m_debBuckets;
    QSpinBox* m_debMaxPos;
    QSpinBox* m_clampLen;
    QComboBox* m_urpeBias;
    QSpinBox* m_learnedRows;
    QSpinBox* m_mlpFeatures;
    QSpinBox* m_mlpHidden;
    QComboBox* m_norm;
    QComboBox* m_mask;
    QSpinBox* m_validLen;
    QCheckBox* m_cls;
    QCheckBox* m_sep;
    SeedSpinBox* m_seed;
    QComboBox* m_precision;
    QComboBox* m_inputKind;
    QComboBox* m_weightsKind;
    std::shared_ptr<const Weights> m_trained;
    QString m_trainedName;
    QComboBox* m_sentence;
    QLineEdit* m_text;
    QTimer* m_coalesce;
    bool m_updating = false;
    bool m_leadingQueued = false; ///< the first change's emission waits for the event loop
    bool m_trailing = false;      ///< changes arrived inside the coalescing window
};

/** Slider position ↔ sequence length: the slider is logarithmic, n = round(2^(s/100)). */
int sliderToLength(int s);
int lengthToSlider(int n);

} // namespace pe
