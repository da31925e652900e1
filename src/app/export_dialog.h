// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>

#include <memory>

namespace Ui {
class ExportDialog;
}

namespace pe {

/** What to export, in which format, at which DPI, to which file (form: ui/export_dialog.ui). */
class ExportDialog : public QDialog {
    Q_OBJECT
public:
    enum class What { Figure, Panel, Matrix };

    ExportDialog(const QString& directory, int dpi, QWidget* parent = nullptr);
    ~ExportDialog() override;

    What what() const;
    int dpi() const;
    /** The chosen path with the format's suffix. */
    QString path() const;
    void setWhat(What w);

private:
    void updateFormats();
    void browse();
    void fixSuffix();

    std::unique_ptr<Ui::ExportDialog> m_ui;
    QString m_directory;
};

} // namespace pe
